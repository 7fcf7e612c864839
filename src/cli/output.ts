import stringWidth from 'string-width';
import { ConfigError } from '../config.js';
import { isConnectionError } from '../db/errors.js';
import { NotFoundError, ValidationError } from '../errors.js';
import { renderFailure } from '../validation/messages.js';
import { printLine, type Terminal } from './terminal.js';

/** A mistake of the operator's (a bad argument, a server holding DATA_DIR): printed as one line, exit 1. */
export class OperatorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OperatorError';
  }
}

/**
 * The command was run by the server holding DATA_DIR, which has written its output: the `accounts` process
 * ends with the command's exit code and says nothing more.
 */
export class HandedOver extends Error {
  constructor(readonly exitCode: number) {
    super(`run by the accounts server (exit ${exitCode})`);
    this.name = 'HandedOver';
  }
}

/** Errors of binding the listening socket: the operator's setting, not a fault of the service. */
const LISTEN_ERRORS = new Set(['EADDRINUSE', 'EADDRNOTAVAIL', 'EACCES', 'ENOTFOUND', 'EAI_AGAIN']);

/** A rule field as the option that carries it: `image_url` → `--image-url`. */
const optionName = (field: string) => `--${field.replaceAll('_', '-')}`;

/**
 * The one line an operator sees for an error that is theirs to fix, or undefined for a fault of ours (which
 * is printed whole, stack and all, because someone has to debug it).
 */
export function operatorMessage(error: unknown): string | undefined {
  if (error instanceof OperatorError || error instanceof ConfigError) return error.message;
  if (error instanceof ValidationError) {
    return Object.entries(error.failures)
      .map(
        ([field, failures]) =>
          `${optionName(field)}: ${failures.map((f) => renderFailure(field, f, 'en')).join(' ')}`,
      )
      .join('; ');
  }
  if (error instanceof NotFoundError) {
    return error.message.charAt(0).toUpperCase() + error.message.slice(1);
  }
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (isConnectionError(error)) {
    return `Cannot reach the database (check DATABASE_URL): ${code ?? (error as Error).message}`;
  }
  if (code !== undefined && LISTEN_ERRORS.has(code)) {
    return `Cannot listen (check HOST and PORT): ${code} ${(error as Error).message}`;
  }
  return undefined;
}

/**
 * Prints rows as aligned columns (two spaces apart), the way `ls -l` and `git` do. Cells are measured by
 * the columns a terminal gives them, not by their length: a Hangul syllable (김민지) or an emoji takes two.
 */
export function printColumns(terminal: Terminal, rows: string[][]): void {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, stringWidth(cell));
    });
  }
  const padded = (cell: string, width: number) => cell + ' '.repeat(Math.max(0, width - stringWidth(cell)));
  for (const row of rows) {
    printLine(
      terminal,
      row.map((cell, i) => (i === row.length - 1 ? cell : padded(cell, widths[i] ?? 0))).join('  '),
    );
  }
}

export function printJson(terminal: Terminal, value: unknown): void {
  printLine(terminal, JSON.stringify(value, null, 2));
}
