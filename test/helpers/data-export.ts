import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { TestApp } from './app.js';
import { bearer, type RegisteredUser } from './factories.js';
import { expectOk, postForm } from './http.js';

export interface ExportView {
  id: string;
  status: string;
  download_url: string | null;
  expires_at: string | null;
}

export const NOT_FOUND = [404, 'NotFoundHttpException', 'Not Found', []] as const;

/** POST user/export with the user's password (or `body` instead). */
export function requestExport(ctx: TestApp, user: RegisteredUser, body: Record<string, string> = {}) {
  return postForm(
    ctx.app,
    '/v1/user/export',
    { current_password: user.password, ...body },
    bearer(user.token),
  );
}

/** Starts an export (202) and waits for the builder; returns the export as the status endpoint shows it. */
export async function readyExport(ctx: TestApp, user: RegisteredUser): Promise<ExportView> {
  const res = await requestExport(ctx, user);
  expect(res.statusCode, res.body).toBe(202);
  const started = (res.json() as { data: { export: ExportView } }).data.export;
  await ctx.dataExports.idle();
  return exportStatus(ctx, user, started.id);
}

export async function exportStatus(ctx: TestApp, user: RegisteredUser, id: string): Promise<ExportView> {
  const res = await ctx.app.inject({
    method: 'GET',
    url: `/v1/user/export/${id}`,
    headers: bearer(user.token),
  });
  return expectOk<{ export: ExportView }>(res).export;
}

export interface ExportPage {
  exports: ExportView[];
  next_cursor: string | null;
}

/** GET user/export (the list) with this query string (`?limit=2…`), as `token`. */
export function listExports(
  ctx: Pick<TestApp, 'app'>,
  token: string,
  query = '',
): Promise<LightMyRequestResponse> {
  return ctx.app.inject({ method: 'GET', url: `/v1/user/export${query}`, headers: bearer(token) });
}

/** GETs a download URL as a mail client would: no API token, no cookie. */
export function download(ctx: TestApp, url: string): Promise<LightMyRequestResponse> {
  const { pathname, search } = new URL(url);
  return ctx.app.inject({ method: 'GET', url: `${pathname}${search}` });
}

/** The zips in the local export store. */
export async function exportFiles(ctx: TestApp): Promise<string[]> {
  return readdir(path.join(ctx.dataDir, 'exports')).catch(() => []);
}
