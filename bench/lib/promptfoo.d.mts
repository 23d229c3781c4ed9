export function promptfooVersion(): Promise<string>;
export function ensurePromptfoo(log: (line: string) => void): Promise<{ node: string; main: string }>;
export function promptfooEnv(configDir: string): Record<string, string | undefined>;
export function writeEval(dir: string, opts: { url: string; model: string; prompts: string[] }): Promise<string>;
