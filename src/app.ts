import Fastify, { type FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { Config } from './config.js';
import type { DatabaseHandle } from './db/client.js';
import { type Endpoint, type RequestServices, runEndpoint } from './http/endpoint.js';
import { ok } from './http/envelope.js';
import { loggerOptions } from './http/logging.js';
import { openApiDocument } from './http/openapi.js';
import { parsePhpStyle } from './http/params.js';
import {
  closeConnectionsWhenClosing,
  registerBodyParsers,
  registerFallbacks,
  registerHealth,
  requestId,
} from './http/server-setup.js';
import { PasswordHasher } from './lib/passwords.js';
import { authEndpoints } from './modules/auth/routes.js';
import { AuthService } from './modules/auth/service.js';
import { TokensRepo } from './modules/tokens/repo.js';
import { TokensService } from './modules/tokens/service.js';
import { UsersRepo } from './modules/users/repo.js';
import { userEndpoints } from './modules/users/routes.js';
import { UsersService } from './modules/users/service.js';
import { validateEndpoints } from './modules/validate/routes.js';
import { SERVICE_VERSION } from './version.js';

export interface AppDeps {
  database: DatabaseHandle;
}

/** Providers the seed names as registration types; each becomes acceptable once configured (its own issue). */
const SEED_REGISTER_PROVIDERS = ['alpha', 'beta'];

/** Builds repos from the database, services from repos, and endpoints from services. */
function buildEndpoints(config: Config, deps: AppDeps): { endpoints: Endpoint[]; services: RequestServices } {
  const db = deps.database.db;
  const usersRepo = new UsersRepo(db);
  const users = new UsersService(usersRepo);
  const tokens = new TokensService(new TokensRepo(db), config.tokenTtlDays);
  const hasher = new PasswordHasher(config.argon2);
  const auth = new AuthService(db, usersRepo, users, tokens, hasher);
  const endpoints = [
    ...validateEndpoints(),
    ...authEndpoints(auth, {
      types: ['email'],
      providerNames: SEED_REGISTER_PROVIDERS,
      image: { maxBytes: config.fileSizeLimitBytes, maxPixels: config.imageMaxPixels },
    }),
    ...userEndpoints(users),
  ];
  return { endpoints, services: { lookups: users, authenticate: (token) => tokens.authenticate(token) } };
}

/**
 * The whole HTTP service as a Fastify instance, not yet listening: `server.ts` listens, tests call
 * `app.inject`. The database handle is the caller's to open and close.
 */
export async function buildApp(config: Config, deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    logger: loggerOptions(config.logLevel),
    genReqId: requestId,
    bodyLimit: config.bodyLimitBytes,
    trustProxy: config.trustProxy,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    routerOptions: {
      ignoreTrailingSlash: true,
      ignoreDuplicateSlashes: true,
      querystringParser: (query) => parsePhpStyle(query),
    },
  });
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  registerFallbacks(app);
  closeConnectionsWhenClosing(app);
  await registerBodyParsers(app, config);

  const { endpoints, services } = buildEndpoints(config, deps);
  registerHealth(app, async () => {
    await sql`SELECT 1`.execute(deps.database.db);
  });
  const document = openApiDocument(endpoints, config.apiVersions, SERVICE_VERSION);
  app.get('/openapi.json', async () => document);

  for (const version of config.apiVersions) {
    for (const definition of endpoints) {
      app.route({
        method: definition.method,
        url: `/${version}${definition.path}`,
        handler: async (request) => ok(await runEndpoint(definition, request, services)),
      });
    }
  }
  return app;
}
