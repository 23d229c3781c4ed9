export function checkBatchLines(stdout: string, count: number): number;
export function checkPromptfooOutput(json: string, count: number): number;
export function batchPrompts(count: number): string[];
