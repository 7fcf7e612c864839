import type { FastifyRequest } from 'fastify';
import {
  GuardianConsentRequiredError,
  IdempotencyKeyReusedError,
  UnauthenticatedError,
  ValidationError,
} from '../errors.js';
import { clientAddressKey } from '../limits/client-address.js';
import { type RateCounter, unlimited } from '../limits/rate-counter.js';
import { explainRefusal, leavesChecksToWrite, validate } from '../validation/engine.js';
import type { Params, RuleList } from '../validation/rule-list.js';
import type { JsonSchema } from '../validation/types.js';
import type { AuthContext } from './auth-context.js';
import { type PresentedCredential, presentedCredential } from './credentials.js';
import type { SuccessStatus } from './envelope.js';
import { parameterBag } from './params.js';
import type { Shape, Static } from './response-schema.js';

export type AuthMode = 'required' | 'optional' | 'none';

export type { AuthContext };

/** What the handler gets as `auth` in each mode: the signed-in user, maybe one, or nobody. */
export interface AuthByMode {
  required: AuthContext;
  optional: AuthContext | undefined;
  none: undefined;
}

/** What the HTTP layer needs from the services to validate and authenticate a request. */
export interface RequestServices {
  authenticate(token: string): Promise<AuthContext | undefined>;
  /** The signed-in user sent a request that may write: their reads stay on the primary for a while. */
  wrote?(userId: string): void;
}

export interface HandlerInput<L extends RuleList, M extends AuthMode> {
  /** Every parameter of the rule list (query, body and path), validated and typed by it. */
  params: Params<L>;
  auth: AuthByMode[M];
  request: FastifyRequest;
}

/** What an endpoint says about itself, whatever its parameters: routing, limits and documentation read it. */
export interface EndpointInfo<M extends AuthMode = AuthMode> {
  method: 'GET' | 'POST';
  /** Path below the version segment, e.g. `/auth/register`; `:name` segments are parameters of the rule list. */
  path: string;
  summary: string;
  description?: string;
  tag: string;
  auth: M;
  /**
   * A per-IP limit: every request counts as soon as its headers are in, before its body is read and before
   * authentication and validation (a malformed guess costs as much as a good one, and a refused client
   * cannot make the server read megabytes first); the request is refused with 429 once the IP is over it.
   */
  limit?: RateCounter;
  /**
   * A per-user limit on uploaded files: each file counts once, as soon as the caller is authenticated and
   * before validation, so an upload that validation refuses (not an image, a pixel bomb) costs as much as one
   * stored (each is probed, and may be decoded). Refused with 429 once the user is over it.
   */
  uploads?: RateCounter;
  /**
   * Set on the POST form of a read (the apps send most calls as forms): it writes nothing. Any other POST
   * may write, and marks the signed-in user as a recent writer, whose next reads go to the primary rather
   * than a replica that may not have the write yet (db/read-routing.ts).
   */
  readOnly?: true;
  /**
   * Set on a write that a child still waiting for a legal guardian's consent may make all the same: signing
   * out, asking a guardian, deleting the account, revoking a session, asking for the data export. Every
   * other write (`restrictedWhileGuardianPending`) answers such a child 403 guardian_consent_required.
   */
  beforeGuardianConsent?: true;
  /**
   * The status of a success, 200 unless the request only starts the work (202 Accepted); `meta.code` is
   * the same.
   */
  successStatus?: SuccessStatus;
  /** Error statuses this endpoint can answer with, besides 422 (documentation). */
  errors?: number[];
  /**
   * Set when the endpoint is routed and documented but cannot serve on this deployment (an identity provider
   * that is not configured): every request is refused with the error it makes, after authentication (an
   * anonymous caller of a protected route still learns only that it is not signed in) and before validation
   * (no parameter could make the request succeed, so none is worth correcting).
   */
  unavailable?: () => Error;
}

/**
 * One endpoint: its rule list (validation and documentation both come from it), who may call it, and a
 * handler that returns the `data` of a 200 envelope. Routes stay three lines; everything else is here once.
 */
export interface Endpoint<L extends RuleList, M extends AuthMode, S extends Shape<unknown>>
  extends EndpointInfo<M> {
  rules: L;
  /**
   * The `data` of the 200 envelope: types the handler's return, documents it, and is what Fastify serializes
   * through (only declared properties reach the client).
   */
  response: S;
  /** One real `data` (taken from a response of the running service; test/integration/responses.test.ts). */
  example: Static<S>;
  handle(input: HandlerInput<L, M>): Promise<Static<S>>;
}

/**
 * An endpoint of any parameters, as the endpoint list holds it: the handler's types are kept inside `run`
 * (a closure over the typed definition), so nothing is erased by a cast.
 */
export interface AnyEndpoint extends EndpointInfo {
  rules: RuleList;
  /** The JSON Schema of the 200 envelope's `data`. */
  response: JsonSchema;
  example: unknown;
  /** Authenticates, validates and handles one request; returns the `data` of the 200 envelope. */
  run(request: FastifyRequest, services: RequestServices): Promise<unknown>;
}

/**
 * Whether a signed-in child whose guardian has not consented yet is refused this endpoint (PIPA art. 22-2:
 * no processing of the child's data beyond asking for consent): every request that may write (a POST not
 * marked `readOnly`), unless marked `beforeGuardianConsent`. A new write is refused by default.
 */
export function restrictedWhileGuardianPending(info: EndpointInfo): boolean {
  return info.auth !== 'none' && info.method === 'POST' && !info.readOnly && !info.beforeGuardianConsent;
}

/** Declares an endpoint: its parameter and auth types stay with its handler, inside `run`. */
export function endpoint<L extends RuleList, M extends AuthMode, S extends Shape<unknown>>(
  definition: Endpoint<L, M, S>,
): AnyEndpoint {
  const { handle: _handle, response, ...info } = definition;
  const leavesChecks = leavesChecksToWrite(definition.rules);
  return {
    ...info,
    response: response.schema,
    run: (request, services) => runEndpoint(definition, request, services, leavesChecks),
  };
}

/** The `onRequest` hook counting an endpoint's per-IP limit before the body is read; none without a limit. */
export function limitBeforeBody(
  definition: EndpointInfo,
): ((request: FastifyRequest) => Promise<void>) | undefined {
  const { limit } = definition;
  // Limits turned off (RATE_LIMIT_ENABLED=false) cost nothing, not a no-op call per request.
  if (!limit || limit === unlimited) return undefined;
  return async (request) => {
    await limit.consume(clientAddressKey(request.ip));
  };
}

/** Uploaded files in a parsed body: at the top level, or in a list or map one level down (`images[]`). */
function uploadedFiles(body: unknown): number {
  const isFile = (value: unknown) =>
    value !== null && typeof value === 'object' && (value as { kind?: unknown }).kind === 'uploaded-file';
  if (body === null || typeof body !== 'object') return 0;
  let count = 0;
  for (const value of Object.values(body)) {
    if (isFile(value)) count++;
    else if (value !== null && typeof value === 'object') count += Object.values(value).filter(isFile).length;
  }
  return count;
}

/** Counts the request's uploaded files on the user's upload limit (the key the limit has always used). */
async function countUploads(limit: RateCounter, userId: string, body: unknown): Promise<void> {
  const files = uploadedFiles(body);
  for (let file = 0; file < files; file++) await limit.consume(`user:${userId}`);
}

/**
 * Finds the signed-in user as each mode needs it: refused without one; nobody when no credential was
 * presented, else refused without one; or never asked.
 */
const authenticators: {
  [M in AuthMode]: (request: FastifyRequest, services: RequestServices) => Promise<AuthByMode[M]>;
} = {
  required: async (request, services) => {
    const auth = await tokenOwner(presentedCredential(request), services);
    if (!auth) throw new UnauthenticatedError();
    return auth;
  },
  optional: async (request, services) => {
    const credential = presentedCredential(request);
    if (credential.kind === 'none') return undefined;
    const auth = await tokenOwner(credential, services);
    if (!auth) throw new UnauthenticatedError();
    return auth;
  },
  none: async () => undefined,
};

/** Whose the one credential is; nobody's when none, or none that can be one (credentials.ts). */
async function tokenOwner(
  credential: PresentedCredential,
  services: RequestServices,
): Promise<AuthContext | undefined> {
  return credential.kind === 'token' ? services.authenticate(credential.token) : undefined;
}

export async function runEndpoint<L extends RuleList, M extends AuthMode, S extends Shape<unknown>>(
  definition: Endpoint<L, M, S>,
  request: FastifyRequest,
  services: RequestServices,
  /** `leavesChecksToWrite(definition.rules)`, asked once per endpoint rather than per request. */
  leavesChecks: boolean,
): Promise<Static<S>> {
  const auth = await authenticators[definition.auth](request, services);
  const signedIn: AuthContext | undefined = auth;
  // Read from the row the token's one statement returned: no query of its own.
  if (signedIn?.user.guardian_consent === 'pending' && restrictedWhileGuardianPending(definition)) {
    throw new GuardianConsentRequiredError();
  }
  if (definition.unavailable) throw definition.unavailable();
  // Limits turned off (RATE_LIMIT_ENABLED=false) cost nothing, as in limitBeforeBody.
  if (definition.uploads && definition.uploads !== unlimited && signedIn) {
    await countUploads(definition.uploads, signedIn.user.id, request.body);
  }
  if (signedIn && definition.method === 'POST' && !definition.readOnly) {
    const userId = signedIn.user.id;
    return noteWrite(services, userId, () => handleValidated(definition, request, auth, leavesChecks));
  }
  return handleValidated(definition, request, auth, leavesChecks);
}

/** Marked once the request is over, whatever its outcome: a write may have committed before a failure. */
async function noteWrite<T>(services: RequestServices, userId: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } finally {
    services.wrote?.(userId);
  }
}

async function handleValidated<L extends RuleList, M extends AuthMode, S extends Shape<unknown>>(
  definition: Endpoint<L, M, S>,
  request: FastifyRequest,
  auth: AuthByMode[M],
  leavesChecks: boolean,
): Promise<Static<S>> {
  const signedIn: AuthContext | undefined = auth;
  const bag = parameterBag(request.query, request.body, request.params);
  const options = { currentUserId: signedIn?.user.id };
  const params = await validate(definition.rules, bag, options);
  if (!leavesChecks) return definition.handle({ params, auth, request });
  try {
    return await definition.handle({ params, auth, request });
  } catch (error) {
    if (!(error instanceof ValidationError) || error instanceof IdempotencyKeyReusedError) throw error;
    throw await explainRefusal(definition.rules, params, error, bag, options);
  }
}
