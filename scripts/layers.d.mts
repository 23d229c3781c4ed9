export interface LayerRule {
  from: string;
  allow?: string[];
  deny?: string[];
  except?: string[];
  why: string;
}
export const LAYERS: LayerRule[];
export function arrowViolation(from: string, to: string): string | undefined;
export function arrowTable(): string;
export function withArrowTable(text: string): string;
export const LAYERED_FOLDERS: string[];
export const ROOT_FILES_MAX: number;
