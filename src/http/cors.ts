import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';

/**
 * CORS for the web clients of CORS_ORIGINS (none by default: nothing is registered and browsers refuse every
 * cross-origin call). The API token travels in the Authorization header, never in a cookie, so credentials
 * stay off: a page of an allowed origin can call the API only with a token it was given.
 */
export async function allowCorsOrigins(app: FastifyInstance, origins: string[]): Promise<void> {
  if (origins.length === 0) return;
  await app.register(cors, {
    origin: origins,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: ['Authorization', 'Content-Type', 'Accept', 'Accept-Language', 'X-Request-Id'],
    exposedHeaders: ['X-Request-Id', 'Retry-After', 'Allow'],
    credentials: false,
    // Browsers cache a preflight this long (seconds), saving a round trip per call.
    maxAge: 600,
    // An OPTIONS without the preflight headers gets an empty 204 rather than a plain-text 400.
    strictPreflight: false,
  });
}
