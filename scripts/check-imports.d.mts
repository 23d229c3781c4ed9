export type ImportGraph = Record<string, string[]>;
export function importGraph(root: string): Promise<ImportGraph>;
export function arrowErrors(graph: ImportGraph): string[];
export function findCycles(graph: ImportGraph): string[][];
export function backArrowErrors(graph: ImportGraph, folders?: string[]): string[];
export function rootFileErrors(graph: ImportGraph, max?: number): string[];
