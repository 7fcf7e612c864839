import { readFile, stat } from 'node:fs/promises';
import { cleanBody, MAX_BODY_BYTES } from '../modules/consents/publish-rules.js';
import { OperatorError } from './output.js';

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
  const cleaned = cleanBody(text);
  if ('body' in cleaned) return cleaned.body;
  if (cleaned.problem === 'nul') throw new OperatorError(`--body: ${file} is not UTF-8 text (it holds NUL)`);
  if (cleaned.problem === 'empty') throw new OperatorError(`--body: ${file} is empty`);
  throw new OperatorError(`--body: ${file} is over ${MAX_BODY_BYTES} bytes (100 KB)`);
}
