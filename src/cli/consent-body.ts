import { readFile, stat } from 'node:fs/promises';
import { OperatorError } from './output.js';

/** The largest document text `--body` takes: a page, with room to spare, never a mistaken binary. */
export const MAX_BODY_BYTES = 100 * 1024;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A `--body` file's text: readable, at most MAX_BODY_BYTES, UTF-8 (a byte-order mark is dropped), not empty,
 * without NUL (PostgreSQL refuses it in JSON text). Line breaks become `\n`. Anything else is the operator's
 * one-line error naming the file as given; `at` is where it is (relative to the command's directory).
 */
export async function readBody(file: string, at = file): Promise<string> {
  const size = await stat(at).then(
    (info) => (info.isFile() ? info.size : undefined),
    (error: NodeJS.ErrnoException) => {
      throw new OperatorError(`--body: cannot read ${file} (${error.code ?? error.message})`);
    },
  );
  if (size === undefined) throw new OperatorError(`--body: ${file} is not a file`);
  if (size > MAX_BODY_BYTES) {
    throw new OperatorError(`--body: ${file} is ${size} bytes; at most ${MAX_BODY_BYTES} (100 KB)`);
  }
  const bytes = await readFile(at).catch((error: NodeJS.ErrnoException) => {
    throw new OperatorError(`--body: cannot read ${file} (${error.code ?? error.message})`);
  });
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new OperatorError(`--body: ${file} is not UTF-8 text`);
  }
  if (text.includes('\u0000')) throw new OperatorError(`--body: ${file} is not UTF-8 text (it holds NUL)`);
  const body = text.replace(/\r\n?/g, '\n').trim();
  if (body === '') throw new OperatorError(`--body: ${file} is empty`);
  return body;
}
