import qs from 'qs';
import { CLEARED, isUploadedFile, type UploadedFile } from '../validation/types.js';

/**
 * PHP-style keys (`exclude[]=a&exclude[]=b`, `exclude[0]=a`, `a[b]=c`) become arrays and objects, as the
 * Laravel stack the apps were built against parsed them. Bounded, so a hostile body cannot build a huge tree.
 */
export const QS_OPTIONS: qs.IParseOptions = {
  depth: 5,
  arrayLimit: 100,
  parameterLimit: 1000,
  allowPrototypes: false,
  allowDots: false,
  // PHP keeps the last of repeated keys (`email=a&email=b` is `b`); only `[]` keys build arrays.
  duplicates: 'last',
};

/**
 * The credential parameter (src/http/credentials.ts). Unlike every other parameter, a repeat of it with
 * another value does not replace the first: the values are kept together, as a list, so that
 * `api_token=WRONG&api_token=VALID` is two credentials (refused) rather than whichever came last. Repeats of
 * one value are one credential, and an empty value is none.
 */
const CREDENTIAL_PARAMETER = 'api_token';

function addCredential(parameters: Record<string, unknown>, value: string): void {
  const existing = parameters[CREDENTIAL_PARAMETER];
  if (existing === undefined || existing === '' || existing === value) {
    parameters[CREDENTIAL_PARAMETER] = value;
    return;
  }
  if (value === '') return;
  const values = Array.isArray(existing) ? existing : [existing];
  if (!values.includes(value)) parameters[CREDENTIAL_PARAMETER] = [...values, value];
}

/** A bracket, plain or percent-encoded (qs decodes `%5B`/`%5D` before it looks for them). */
const BRACKET = /[[\]]|%5[bd]/i;

/** qs's utf-8 decoder: `+` is a space, and a malformed escape leaves the text as it is (never throws). */
function decodeComponent(text: string): string {
  if (!text.includes('%')) return text.includes('+') ? text.replaceAll('+', ' ') : text;
  const spaced = text.replaceAll('+', ' ');
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
}

/**
 * What qs.parse answers with QS_OPTIONS for a body without brackets (almost every request: `email=…`),
 * without building qs's key tree and merging it: flat keys, the last of repeated ones, at most
 * `parameterLimit` parts, empty keys and Object.prototype names (`__proto__`, `constructor`, …) dropped.
 * test/unit/params-fast-path.test.ts compares the two on many generated bodies.
 */
function parseFlat(query: string): Record<string, unknown> {
  const parameters: Record<string, unknown> = {};
  for (const part of query.split('&', QS_OPTIONS.parameterLimit)) {
    const equals = part.indexOf('=');
    const key = decodeComponent(equals === -1 ? part : part.slice(0, equals));
    if (key === '' || Object.hasOwn(Object.prototype, key)) continue;
    const value = equals === -1 ? '' : decodeComponent(part.slice(equals + 1));
    if (key === CREDENTIAL_PARAMETER) addCredential(parameters, value);
    else parameters[key] = value;
  }
  return parameters;
}

/** qs keeps the last of repeated keys: the credential's plain repeats are collected as parseFlat does. */
function parseWithBrackets(query: string): Record<string, unknown> {
  const parameters = qs.parse(query, QS_OPTIONS) as Record<string, unknown>;
  const plain: Record<string, unknown> = {};
  for (const part of query.split('&', QS_OPTIONS.parameterLimit)) {
    const equals = part.indexOf('=');
    if (decodeComponent(equals === -1 ? part : part.slice(0, equals)) !== CREDENTIAL_PARAMETER) continue;
    addCredential(plain, equals === -1 ? '' : decodeComponent(part.slice(equals + 1)));
  }
  if (Array.isArray(plain[CREDENTIAL_PARAMETER]))
    parameters[CREDENTIAL_PARAMETER] = plain[CREDENTIAL_PARAMETER];
  return parameters;
}

export function parsePhpStyle(query: string): Record<string, unknown> {
  return BRACKET.test(query) ? parseWithBrackets(query) : parseFlat(query);
}

/** PHP's trim() set (space, tab, LF, CR, NUL, vertical tab): what Laravel's TrimStrings removes. */
const PHP_WHITESPACE = new Set([' ', '\t', '\n', '\r', '\u0000', '\u000b']);

export function phpTrim(value: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && PHP_WHITESPACE.has(value.charAt(start))) start++;
  while (end > start && PHP_WHITESPACE.has(value.charAt(end - 1))) end--;
  return value.slice(start, end);
}

function isEmptyValue(key: string, value: unknown): boolean {
  if (value === null) return true;
  if (typeof value !== 'string') return false;
  return (key.toLowerCase().includes('password') ? value : phpTrim(value)) === '';
}

/** Deeper JSON than any parameter of ours has is left as it is (and fails its field's type check). */
const MAX_DEPTH = 8;

function normalizeValue(key: string, value: unknown, depth: number): unknown {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'string') {
    // Passwords are taken exactly as typed: a leading space is part of the secret.
    const trimmed = key.toLowerCase().includes('password') ? value : phpTrim(value);
    return trimmed === '' ? undefined : trimmed;
  }
  if (isUploadedFile(value)) return value;
  if (depth >= MAX_DEPTH) return value;
  if (Array.isArray(value)) {
    return value.map((item) => normalizeValue(key, item, depth + 1)).filter((item) => item !== undefined);
  }
  if (typeof value === 'object') return normalizeObject(value as Record<string, unknown>, depth + 1);
  return value;
}

function normalizeObject(input: Record<string, unknown>, depth = 0): Record<string, unknown> {
  const output: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    const normalized = normalizeValue(key, value, depth);
    if (normalized !== undefined) output[key] = normalized;
    else if (depth === 0 && isEmptyValue(key, value)) output[key] = CLEARED;
  }
  return output;
}

/**
 * One parameter bag from the query string, the body and the path, as Laravel's `input()` sees the first two:
 * body fields win over query fields of the same name; strings are trimmed (except passwords) and an empty
 * string counts as absent. Path parameters (`/post/:id/like`) win over both: the URL names the resource, and
 * a body field of the same name must not redirect the request to another one.
 */
export function parameterBag(query: unknown, body: unknown, path?: unknown): Record<string, unknown> {
  const merged: Record<string, unknown> = {};
  if (query && typeof query === 'object') Object.assign(merged, query);
  if (body && typeof body === 'object' && !Array.isArray(body) && !Buffer.isBuffer(body))
    Object.assign(merged, body);
  if (path && typeof path === 'object') Object.assign(merged, path);
  return normalizeObject(merged);
}

export interface MultipartPart {
  type: 'field' | 'file';
  fieldname: string;
  value?: unknown;
  filename?: string;
  mimetype?: string;
  upload?: UploadedFile;
  /** Set by the multipart parser when a text value was cut at the field size limit. */
  valueTruncated?: boolean;
}

/** A file part name that builds a list: `images[]` or `images[3]` (kept in the order the parts arrive). */
const FILE_LIST_NAME = /^([^[\]]+)\[\d*\]$/;

/**
 * Turns @fastify/multipart's body (fields by name, repeated names as arrays) into the same shape a form body
 * has: text fields through the PHP-style parser, files as UploadedFile values under their field name.
 */
export function multipartToObject(
  body: Record<string, MultipartPart | MultipartPart[]>,
): Record<string, unknown> {
  const pairs: string[] = [];
  // Files, and JSON parts (which arrive parsed), keep their own values; text goes through the PHP-style parser.
  const direct: Record<string, unknown> = {};
  const fileLists: Record<string, UploadedFile[]> = {};
  for (const entry of Object.values(body)) {
    for (const part of Array.isArray(entry) ? entry : [entry]) {
      if (part.type === 'file') {
        if (!part.upload) continue;
        // `images[]` (or `images[0]`, `images[1]`…) parts build a list, as PHP's $_FILES does; a plain name
        // keeps its last file.
        const listName = FILE_LIST_NAME.exec(part.fieldname)?.[1];
        if (listName === undefined) direct[part.fieldname] = part.upload;
        else fileLists[listName] = [...(fileLists[listName] ?? []), part.upload];
      } else if (typeof part.value === 'string') {
        pairs.push(`${encodeURIComponent(part.fieldname)}=${encodeURIComponent(part.value)}`);
      } else if (part.value !== undefined) {
        direct[part.fieldname] = part.value;
      }
    }
  }
  return { ...parsePhpStyle(pairs.join('&')), ...direct, ...fileLists };
}
