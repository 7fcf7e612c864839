import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import type { AdminDownload, AdminRequestServices, AnyAdminEndpoint } from '../http/admin-endpoint.js';
import { adminOpenApiDocument } from '../http/admin-openapi.js';
import { NO_FILES } from '../http/body-parsers.js';
import { limitBeforeBody } from '../http/endpoint.js';
import { ok, successEnvelopeSchema } from '../http/envelope.js';
import { SERVICE_VERSION } from '../version.js';

/** What the admin API's routes are made of. */
export interface AdminApi {
  endpoints: AnyAdminEndpoint[];
  services: AdminRequestServices;
}

/**
 * The second app on the one root, beside the app's API: the admin API under /admin/v1, its own document at
 * /admin/openapi.json. Same instance, so the same error catalogue, envelope, hooks and body parsers; its own
 * credential (the staff cookie) and its own steps (http/admin-endpoint.ts).
 */
export function registerAdmin(app: FastifyInstance, config: Config, admin: AdminApi): void {
  if (config.docsEnabled) {
    const document = adminOpenApiDocument(admin.endpoints, SERVICE_VERSION);
    app.get('/admin/openapi.json', async () => document);
  }
  for (const definition of admin.endpoints) {
    const countLimit = limitBeforeBody(definition);
    const { download } = definition;
    if (download !== undefined) {
      app.route({
        method: definition.method,
        url: `/admin/v1${definition.path}`,
        config: NO_FILES,
        ...(countLimit ? { onRequest: countLimit } : {}),
        handler: async (request, reply) => {
          const file = (await definition.run(request, reply, admin.services)) as AdminDownload;
          // The name is ours (a date and a fixed word), never the request's: nothing to escape.
          return reply
            .type(download.contentType)
            .header('content-disposition', `attachment; filename="${file.filename}"`)
            .header('cache-control', 'no-store')
            .send(file.body);
        },
      });
      continue;
    }
    app.route({
      method: definition.method,
      url: `/admin/v1${definition.path}`,
      // An upload's endpoint names how many files it takes; every other one takes none.
      config:
        definition.files === undefined
          ? NO_FILES
          : { multipartOptions: { limits: { files: definition.files } } },
      ...(countLimit ? { onRequest: countLimit } : {}),
      schema: { response: { 200: successEnvelopeSchema(definition.response, 200) } },
      handler: async (request, reply) => ok(await definition.run(request, reply, admin.services), 200),
    });
  }
}
