import type { FastifyRequest } from 'fastify';
import { UnauthenticatedError } from '../errors.js';
import { clientAddressKey } from '../limits/client-address.js';
import type { RateCounter } from '../limits/rate-counter.js';
import { validate } from '../validation/engine.js';
import type { Params, RuleList } from '../validation/fields.js';
import type { Lookups } from '../validation/types.js';
import { bearerToken } from './auth.js';
import { parameterBag } from './params.js';

export type AuthMode = 'required' | 'optional' | 'none';

/** Who made the request, once their token checked out. */
export interface AuthContext<U = unknown> {
  user: U;
  tokenId: string;
  /** The user's linked provider names, read in the same query as the token (saves user/get a round trip). */
  linkedProviders?: readonly string[];
}

/** What the HTTP layer needs from the services to validate and authenticate a request. */
export interface RequestServices {
  lookups: Lookups;
  authenticate(token: string): Promise<AuthContext | undefined>;
}

export interface HandlerInput<L extends RuleList, M extends AuthMode> {
  params: Params<L>;
  auth: M extends 'required' ? AuthContext : AuthContext | undefined;
  request: FastifyRequest;
  /** What rules learned while validating (e.g. an image's real format), by field. */
  notes: Map<string, unknown>;
}

/**
 * One endpoint: its rule list (validation and documentation both come from it), who may call it, and a
 * handler that returns the `data` of a 200 envelope. Routes stay three lines; everything else is here once.
 */
export interface Endpoint<L extends RuleList = RuleList, M extends AuthMode = AuthMode> {
  method: 'GET' | 'POST';
  /** Path below the version segment, e.g. `/auth/register`. */
  path: string;
  summary: string;
  description?: string;
  tag: string;
  auth: M;
  rules: L;
  /**
   * A per-IP limit: every request counts as soon as its headers are in, before its body is read and before
   * authentication and validation (a malformed guess costs as much as a good one, and a refused client
   * cannot make the server read megabytes first); the request is refused with 429 once the IP is over it.
   */
  limit?: RateCounter;
  /** Error statuses this endpoint can answer with, besides 422 (documentation). */
  errors?: number[];
  handle(input: HandlerInput<L, M>): Promise<unknown>;
}

/** Declares an endpoint, keeping its parameter types; the list of endpoints erases them. */
export function endpoint<L extends RuleList, M extends AuthMode>(definition: Endpoint<L, M>): Endpoint {
  return definition as unknown as Endpoint;
}

/**
 * The token, in the order Laravel's token guard looks for it: `api_token` in the query string, then in the
 * body, then `Authorization: Bearer`.
 */
export function presentedToken(request: FastifyRequest): string | undefined {
  const fromQuery = (request.query as Record<string, unknown> | undefined)?.api_token;
  if (typeof fromQuery === 'string' && fromQuery !== '') return fromQuery;
  const body = request.body as Record<string, unknown> | undefined;
  const fromBody = body && typeof body === 'object' ? body.api_token : undefined;
  if (typeof fromBody === 'string' && fromBody !== '') return fromBody;
  return bearerToken(request.headers.authorization);
}

/** The `onRequest` hook counting an endpoint's per-IP limit before the body is read; none without a limit. */
export function limitBeforeBody(
  definition: Endpoint,
): ((request: FastifyRequest) => Promise<void>) | undefined {
  const { limit } = definition;
  if (!limit) return undefined;
  return async (request) => {
    await limit.consume(clientAddressKey(request.ip));
  };
}

export async function runEndpoint(
  definition: Endpoint,
  request: FastifyRequest,
  services: RequestServices,
): Promise<unknown> {
  let auth: AuthContext | undefined;
  if (definition.auth !== 'none') {
    const token = presentedToken(request);
    auth = token === undefined ? undefined : await services.authenticate(token);
    if (!auth && definition.auth === 'required') throw new UnauthenticatedError();
  }
  const notes = new Map<string, unknown>();
  const bag = parameterBag(request.query, request.body);
  const params = await validate(definition.rules, bag, {
    lookups: services.lookups,
    currentUserId: (auth?.user as { id?: string } | undefined)?.id,
    notes,
  });
  return definition.handle({ params, auth: auth as AuthContext, request, notes });
}
