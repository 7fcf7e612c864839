import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { Config } from '../config.js';
import type { DatabaseHandle } from '../db/client.js';
import { loadMigrations } from '../db/migrate.js';
import { NO_FILES } from '../http/body-parsers.js';
import { type AnyEndpoint, limitBeforeBody, type RequestServices } from '../http/endpoint.js';
import { ok, successEnvelopeSchema } from '../http/envelope.js';
import { openApiDocument } from '../http/openapi.js';
import { registerHealth } from '../http/server-setup.js';
import { SERVICE_VERSION } from '../version.js';

/** What the API's routes are made of. */
export interface Api {
  database: DatabaseHandle;
  /** Every endpoint, in the order /openapi.json lists them. */
  endpoints: AnyEndpoint[];
  services: RequestServices;
  /** The routes that answer a file, not an envelope (the data-export download). */
  registerDownloads: (app: FastifyInstance) => void;
}

/**
 * /healthz and /readyz. Ready means the database answers *and* carries every migration this build knows: an
 * instance started with MIGRATE_ON_START=false before `accounts migrate` ran stays out of the load balancer.
 */
async function registerHealthChecks(app: FastifyInstance, database: DatabaseHandle): Promise<void> {
  const latestMigration = (await loadMigrations()).at(-1)?.version ?? '';
  registerHealth(app, async () => {
    const { rows } = await sql<{
      version: string | null;
    }>`SELECT max(version) AS version FROM schema_migrations`.execute(database.db);
    const applied = rows[0]?.version ?? '';
    if (applied < latestMigration)
      throw new Error(`schema at ${applied || 'nothing'}, this build needs ${latestMigration}`);
  });
}

/** Every endpoint under every configured API version, its answer in the envelope. */
function registerEndpoints(app: FastifyInstance, config: Config, api: Api): void {
  for (const version of config.apiVersions) {
    for (const definition of api.endpoints) {
      const takesFiles = Object.values(definition.rules).some(
        (field) => field.spec.kind === 'file' || field.spec.kind === 'files',
      );
      const countLimit = limitBeforeBody(definition);
      const success = definition.successStatus ?? 200;
      app.route({
        method: definition.method,
        url: `/${version}${definition.path}`,
        ...(takesFiles ? {} : { config: NO_FILES }),
        ...(countLimit ? { onRequest: countLimit } : {}),
        // Serialized through the declared success schema: only its properties reach the client.
        schema: { response: { [success]: successEnvelopeSchema(definition.response, success) } },
        handler: async (request, reply) => {
          const data = await definition.run(request, api.services);
          if (success !== 200) reply.code(success);
          return ok(data, success);
        },
      });
    }
  }
}

/** The API: the downloads, the health checks, /openapi.json and every endpoint. */
export async function registerApi(app: FastifyInstance, config: Config, api: Api): Promise<void> {
  api.registerDownloads(app);
  await registerHealthChecks(app, api.database);
  // DOCS_ENABLED=false: a deployment that does not publish its API description answers 404 for both.
  if (config.docsEnabled) {
    const document = openApiDocument(api.endpoints, config.apiVersions, SERVICE_VERSION);
    app.get('/openapi.json', async () => document);
  }
  registerEndpoints(app, config, api);
}
