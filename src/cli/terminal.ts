import { inspect } from 'node:util';

/** Where a command's output goes: the process's stdout and stderr, or a buffer when run in-process. */
export interface Terminal {
  /** Writes the text to standard output as it is (commander's help ends its own lines). */
  writeOut(text: string): void;
  /** Writes the text to standard error as it is. */
  writeErr(text: string): void;
}

/** A line on standard output, as `console.log` writes it. */
export function printLine(terminal: Terminal, line: string): void {
  terminal.writeOut(`${line}\n`);
}

/** A line on standard error; anything but a string (a fault of ours) whole, stack included. */
export function printProblemLine(terminal: Terminal, problem: unknown): void {
  terminal.writeErr(`${typeof problem === 'string' ? problem : inspect(problem)}\n`);
}
