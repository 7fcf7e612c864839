import type { FastifyInstance } from 'fastify';
import { ValidationError } from '../../errors.js';
import { NO_FILES } from '../../http/body-parsers.js';
import { sendRefusal } from '../../http/errors.js';
import type { RateCounter } from '../../limits/rate-counter.js';
import type { ServiceCredentials, ServiceCredentialView } from '../../modules/service-credentials/service.js';
import type { SigningKeys } from '../../modules/signing-keys/service.js';
import type { AccessTokens } from './service.js';

export interface OAuthRouteParts {
  accessTokens: AccessTokens;
  keys: SigningKeys;
  credentials: ServiceCredentials;
  /** Introspections per service credential. */
  limit: RateCounter;
}

/** `Authorization: Basic base64(client_id:client_secret)`, each part form-encoded first (RFC 6749 §2.3.1). */
export function basicCredentials(header: string | undefined): { id: string; secret: string } | undefined {
  const encoded = /^Basic[ \t]+([A-Za-z0-9+/]+=*)[ \t]*$/i.exec(header ?? '')?.[1];
  if (encoded === undefined || encoded.length > 1024) return undefined;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  try {
    const form = (part: string) => decodeURIComponent(part.replace(/\+/g, ' '));
    return { id: form(decoded.slice(0, colon)), secret: form(decoded.slice(colon + 1)) };
  } catch {
    return undefined;
  }
}

/**
 * The two answers other services read as OAuth clients do, in their RFCs' own JSON rather than the envelope:
 * the public keys (RFC 7517) and the introspection (RFC 7662). A refusal is still the catalogue's envelope.
 */
export function registerOAuthRoutes(app: FastifyInstance, parts: OAuthRouteParts): void {
  const { accessTokens, keys, credentials, limit } = parts;

  // Cached for half the publish-ahead at most: a new key is in every cache before it signs.
  app.get('/.well-known/jwks.json', async (_request, reply) => {
    const published = keys.configured ? await keys.published() : [];
    return reply
      .header('cache-control', `public, max-age=${keys.jwksMaxAgeSeconds}`)
      .type('application/json; charset=utf-8')
      .send({ keys: published });
  });

  app.post('/oauth/introspect', { config: NO_FILES }, async (request, reply) => {
    const given = basicCredentials(request.headers.authorization);
    const credential: ServiceCredentialView | undefined =
      given === undefined ? undefined : await credentials.authenticate(given.id, given.secret);
    if (credential === undefined) {
      return sendRefusal(
        reply.header('www-authenticate', 'Basic realm="accounts", charset="UTF-8"'),
        'introspection_unauthorized',
      );
    }
    await limit.consume(credential.client_id);
    const body = request.body as Record<string, unknown> | undefined;
    const token = body && typeof body === 'object' ? body.token : undefined;
    if (token === undefined || token === null || token === '') {
      throw new ValidationError({ token: [{ rule: 'required' }] });
    }
    if (typeof token !== 'string') throw new ValidationError({ token: [{ rule: 'string' }] });
    return reply
      .header('cache-control', 'no-store')
      .type('application/json; charset=utf-8')
      .send(await accessTokens.introspect(token));
  });
}
