import type { FastifyInstance } from 'fastify';
import { type AnyEndpoint, endpoint } from '../../http/endpoint.js';
import { t } from '../../http/response-schema.js';
import { string } from '../../validation/field-kinds.js';
import { preferredLocale } from '../../validation/messages.js';
import { rules } from '../../validation/rule-list.js';
import { reauthProof, reauthRules } from '../reauth/rules.js';
import { clientInfo } from '../request-client.js';
import type { ExportListCursorCodec } from './cursor.js';
import { exportListRules } from './rules.js';
import type { DataExports } from './service.js';

const exportShape = t.object({
  id: t.string(),
  status: t.enum(['pending', 'ready', 'expired', 'failed'] as const),
  download_url: t.nullable(t.string()),
  expires_at: t.nullable(t.dateTime()),
});

const READY_EXAMPLE = {
  id: '019ab0c4-5e20-7b4c-9d1e-2f3a4b5c6d7e',
  status: 'ready' as const,
  download_url:
    'https://accounts.example.com/v1/export/download/019ab0c4-5e20-7b4c-9d1e-2f3a4b5c6d7e?token=' +
    'q3F0n7Jm0dS2cX9p1aWbV5yLr8eT4uGh6iKoZjNwQxE',
  expires_at: '2026-11-24T12:40:05.130Z',
};

export function dataExportEndpoints(
  exports: DataExports,
  cursors: ExportListCursorCodec,
  providers: readonly string[],
): AnyEndpoint[] {
  return [
    endpoint({
      method: 'POST',
      path: '/user/export',
      // Open to a child awaiting a guardian's consent (docs/identity.md).
      beforeGuardianConsent: true,
      summary: 'Ask for a copy of everything the service holds about the signed-in user',
      description:
        'Needs re-authentication like user/delete. Answers 202 with the export, `pending`: it is built in ' +
        'the background and a mail with its download link follows. While one is pending, asking again ' +
        'answers that one. At most one new export per user per hour (RATE_LIMIT_DATA_EXPORT): 429.',
      tag: 'user',
      auth: 'required',
      successStatus: 202,
      errors: [429, 502],
      rules: rules({ ...reauthRules(providers) }),
      response: t.object({ export: exportShape }),
      example: {
        export: {
          id: '019ab0c4-5e20-7b4c-9d1e-2f3a4b5c6d7e',
          status: 'pending',
          download_url: null,
          expires_at: null,
        },
      },
      handle: async ({ params, auth, request }) => ({
        export: await exports.request(
          auth,
          reauthProof(params, providers),
          preferredLocale(request.headers['accept-language']),
          clientInfo(request),
        ),
      }),
    }),
    endpoint({
      method: 'GET',
      path: '/user/export/:id',
      summary: "One of the signed-in user's data exports",
      description:
        '`pending`, `ready` (with its `download_url` until `expires_at`), `expired` (the file is deleted) or ' +
        '`failed`. Only the user’s own exports; any other id is a 404.',
      tag: 'user',
      auth: 'required',
      errors: [404],
      rules: rules({ id: string().required().describe('The `id` of the export, from user/export.') }),
      response: t.object({ export: exportShape }),
      example: { export: READY_EXAMPLE },
      handle: async ({ params, auth }) => ({ export: await exports.status(auth, params.id) }),
    }),
    endpoint({
      method: 'GET',
      path: '/user/export',
      summary: "The signed-in user's data exports, newest first, a page at a time",
      description:
        'Each export as user/export/{id} shows it; the first is the latest (what a page shows on load). ' +
        'Expired and failed exports stay listed. Keyset pagination: pass `next_cursor` back as `cursor` ' +
        'until it is null.',
      tag: 'user',
      auth: 'required',
      rules: exportListRules(cursors),
      response: t.object({ exports: t.array(exportShape), next_cursor: t.nullable(t.string()) }),
      example: { exports: [READY_EXAMPLE], next_cursor: null },
      handle: ({ params, auth }) => exports.list(auth, { limit: params.limit ?? 20, cursor: params.cursor }),
    }),
  ];
}

/**
 * `GET /{version}/export/download/{id}?token=…`: the zip itself (or, on S3, a 302 to a short-lived
 * presigned URL of it), not an envelope, and without the API token (the link is mailed). The token stays out of the access log: it logs query keys, never values
 * (http/logging.ts). A refusal is the 404 envelope.
 */
export function registerExportDownload(
  app: FastifyInstance,
  versions: readonly string[],
  exports: DataExports,
): void {
  for (const version of versions) {
    app.get(`/${version}/export/download/:id`, async (request, reply) => {
      const { id } = request.params as { id: string };
      const token = (request.query as Record<string, unknown> | undefined)?.token;
      const file = await exports.download(id, typeof token === 'string' ? token : undefined);
      if (file.kind === 'redirect') {
        // The presigned URL carries its own signature: it stays out of caches and of the next page's Referer.
        return reply
          .code(302)
          .header('location', file.url)
          .header('cache-control', 'private, no-store')
          .header('referrer-policy', 'no-referrer')
          .send();
      }
      return reply
        .header('content-type', 'application/zip')
        .header('content-disposition', `attachment; filename="${file.filename}"`)
        .header('content-length', file.size)
        .header('cache-control', 'private, no-store')
        .header('referrer-policy', 'no-referrer')
        .header('x-content-type-options', 'nosniff')
        .send(file.stream);
    });
  }
}
