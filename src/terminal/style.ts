import { Chalk } from 'chalk';
import type { IO } from './io.js';

export interface Style {
  dim(text: string): string;
  bold(text: string): string;
  red(text: string): string;
  yellow(text: string): string;
  green(text: string): string;
  cyan(text: string): string;
}

/**
 * Styles for stderr. The decision is io.color, made once in createIO; chalk's own detection
 * (which looks at process streams, not ours) is overridden by an explicit level.
 */
export function createStyle(io: Pick<IO, 'color'>): Style {
  const chalk = new Chalk({ level: io.color ? 1 : 0 });
  return {
    dim: (text) => chalk.dim(text),
    bold: (text) => chalk.bold(text),
    red: (text) => chalk.red(text),
    yellow: (text) => chalk.yellow(text),
    green: (text) => chalk.green(text),
    cyan: (text) => chalk.cyan(text),
  };
}
