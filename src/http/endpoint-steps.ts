import type { FastifyRequest } from 'fastify';
import {
  GuardianConsentRequiredError,
  IdempotencyKeyReusedError,
  UnauthenticatedError,
  ValidationError,
} from '../errors.js';
import { type RateCounter, unlimited } from '../limits/rate-counter.js';
import { explainRefusal, type ValidationOptions } from '../validation/engine.js';
import type { RuleList } from '../validation/rule-list.js';
import type { AuthContext } from './auth-context.js';
import { type PresentedCredential, presentedCredential } from './credentials.js';

/**
 * The steps a request meets in an endpoint, in order (http/endpoint.ts runs them): authenticate, the guardian
 * gate, availability, upload counting, then validation, the handler, and the explanation of a refusal the
 * write made. Each is a small function of what it needs; what a step decides per endpoint rather than per
 * request is decided once, when the endpoint is declared.
 */

export type AuthMode = 'required' | 'optional' | 'none';

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

export type Authenticator<M extends AuthMode> = (
  request: FastifyRequest,
  services: RequestServices,
) => Promise<AuthByMode[M]>;

/** Whose the one credential is; nobody's when none, or none that can be one (credentials.ts). */
async function tokenOwner(
  credential: PresentedCredential,
  services: RequestServices,
): Promise<AuthContext | undefined> {
  return credential.kind === 'token' ? services.authenticate(credential.token) : undefined;
}

/**
 * 1. Authenticate: finds the signed-in user as each mode needs it: refused without one; nobody when no
 * credential was presented, else refused without one; or never asked.
 */
const authenticators: { [M in AuthMode]: Authenticator<M> } = {
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

export function authenticatorFor<M extends AuthMode>(mode: M): Authenticator<M> {
  return authenticators[mode];
}

/**
 * 2. The guardian gate: a signed-in child whose guardian has not consented yet is refused an endpoint that is
 * `restricted` (restrictedWhileGuardianPending). Read from the row the token's one statement returned: no
 * query of its own.
 */
export function guardianGate(restricted: boolean, signedIn: AuthContext | undefined): void {
  if (restricted && signedIn?.user.guardian_consent === 'pending') throw new GuardianConsentRequiredError();
}

/** 3. Availability: an endpoint that cannot serve on this deployment refuses with the error it makes. */
export function availability(unavailable: (() => Error) | undefined): void {
  if (unavailable) throw unavailable();
}

/** Uploaded files in a parsed body: at the top level, or in a list or map one level down (`images[]`). */
export function uploadedFiles(body: unknown): number {
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

/**
 * 4. Upload counting: each uploaded file counts once on the signed-in user's upload limit (the key the limit
 * has always used). Nothing to wait for (undefined) without a limit, with limits turned off
 * (RATE_LIMIT_ENABLED=false) or without a signed-in user, so the common request pays no promise for it.
 */
export function countUploads(
  limit: RateCounter | undefined,
  signedIn: AuthContext | undefined,
  body: unknown,
): Promise<void> | undefined {
  if (!limit || limit === unlimited || !signedIn) return undefined;
  return consumeEach(limit, `user:${signedIn.user.id}`, uploadedFiles(body));
}

async function consumeEach(limit: RateCounter, key: string, times: number): Promise<void> {
  for (let time = 0; time < times; time++) await limit.consume(key);
}

/**
 * Around validation and the handler, for a request that may write: the signed-in user is marked a recent
 * writer once the request is over, whatever its outcome (a write may have committed before a failure).
 */
export async function noteWrite<T>(
  services: RequestServices,
  userId: string,
  work: () => Promise<T>,
): Promise<T> {
  try {
    return await work();
  } finally {
    services.wrote?.(userId);
  }
}

/**
 * 7. Explaining: a write that refused a value with a 422 (a unique index) is answered as validation would
 * have answered it, naming every taken field (validation/engine.ts). Anything else, and a reused
 * Idempotency-Key (which says nothing about the parameters), is what is thrown.
 */
export async function explainFailure(
  error: unknown,
  rules: RuleList,
  params: Readonly<Record<string, unknown>>,
  bag: Readonly<Record<string, unknown>>,
  options: ValidationOptions,
): Promise<unknown> {
  if (!(error instanceof ValidationError) || error instanceof IdempotencyKeyReusedError) return error;
  return explainRefusal(rules, params, error, bag, options);
}
