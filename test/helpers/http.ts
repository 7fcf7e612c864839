import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';

export type Body = Record<string, string | number | boolean | null | undefined | string[]>;

/** POST as a browser form (application/x-www-form-urlencoded), the way the mobile apps send most calls. */
export function postForm(
  app: FastifyInstance,
  url: string,
  body: Body,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  const form = new URLSearchParams();
  for (const [key, value] of Object.entries(body)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const item of value) form.append(`${key}[]`, item);
    else form.append(key, value === null ? '' : String(value));
  }
  return app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: form.toString(),
  });
}

export function postJson(
  app: FastifyInstance,
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/json', ...headers },
    payload: JSON.stringify(body),
  });
}

export interface FilePart {
  filename: string;
  contentType: string;
  data: Buffer;
}

/** POST multipart/form-data with text fields and files, built by hand so the bytes are exactly what we say. */
export function postMultipart(
  app: FastifyInstance,
  url: string,
  fields: Record<string, string | undefined>,
  files: Record<string, FilePart | FilePart[]> = {},
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  const boundary = `----accounts-test-${Math.random().toString(16).slice(2)}`;
  const chunks: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    chunks.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`),
    );
  }
  // A list sends one part per file under the same name (`images[]`), as a browser's multiple file input does.
  const parts = Object.entries(files).flatMap(([name, value]) =>
    (Array.isArray(value) ? value : [value]).map((file) => [name, file] as const),
  );
  for (const [name, file] of parts) {
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${file.filename}"\r\nContent-Type: ${file.contentType}\r\n\r\n`,
      ),
      file.data,
      Buffer.from('\r\n'),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, ...headers },
    payload: Buffer.concat(chunks),
  });
}

/** Asserts the whole 422 envelope: exactly these fields, with exactly these messages. */
export function expectValidationError(res: LightMyRequestResponse, data: Record<string, string[]>): void {
  expect(res.statusCode).toBe(422);
  expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(res.json()).toEqual({
    meta: { code: 422, error_type: 'ValidationException', error_message: 'Unprocessable Entity' },
    data,
  });
}

/** Asserts an error envelope with this status, type, message and data. */
export function expectError(
  res: LightMyRequestResponse,
  code: number,
  errorType: string,
  errorMessage: string,
  data: unknown = [],
): void {
  expect(res.statusCode).toBe(code);
  expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(res.json()).toEqual({ meta: { code, error_type: errorType, error_message: errorMessage }, data });
}

/** Asserts a 200 envelope and returns its data. */
export function expectOk<T = Record<string, unknown>>(res: LightMyRequestResponse): T {
  expect(res.statusCode, res.body).toBe(200);
  const body = res.json();
  expect(body.meta).toEqual({ code: 200 });
  return body.data as T;
}

export const UNAUTHENTICATED = [
  'AuthenticationException',
  'Unauthenticated.',
  { status: 'unauthenticated' },
] as const;
