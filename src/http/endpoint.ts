import type { FastifyRequest } from 'fastify';
import { clientAddressKey } from '../limits/client-address.js';
import { type RateCounter, unlimited } from '../limits/rate-counter.js';
import { leavesChecksToWrite, validate } from '../validation/engine.js';
import type { Params, RuleList } from '../validation/rule-list.js';
import type { JsonSchema } from '../validation/types.js';
import type { AuthContext } from './auth-context.js';
import {
  type AuthByMode,
  type Authenticator,
  type AuthMode,
  authenticatorFor,
  availability,
  countUploads,
  explainFailure,
  guardianGate,
  noteWrite,
  type RequestServices,
} from './endpoint-steps.js';
import type { SuccessStatus } from './envelope.js';
import { parameterBag } from './params.js';
import type { Shape, Static } from './response-schema.js';

export type { AuthByMode, AuthContext, AuthMode, RequestServices };

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

/** What the steps of an endpoint need to know about it, decided once when it is declared, never per request. */
interface Plan<M extends AuthMode> {
  authenticate: Authenticator<M>;
  /** restrictedWhileGuardianPending. */
  guardianRestricted: boolean;
  /** The per-user upload limit, unless there is none or limits are off. */
  uploads: RateCounter | undefined;
  /** A POST not marked readOnly: a signed-in caller becomes a recent writer. */
  mayWrite: boolean;
  /** leavesChecksToWrite(rules): a refusal of the handler may need explaining. */
  leavesChecks: boolean;
}

/** Declares an endpoint: its parameter and auth types stay with its handler, inside `run`. */
export function endpoint<L extends RuleList, M extends AuthMode, S extends Shape<unknown>>(
  definition: Endpoint<L, M, S>,
): AnyEndpoint {
  const { handle: _handle, response, ...info } = definition;
  const plan: Plan<M> = {
    authenticate: authenticatorFor(definition.auth),
    guardianRestricted: restrictedWhileGuardianPending(definition),
    uploads: definition.uploads === unlimited ? undefined : definition.uploads,
    mayWrite: definition.method === 'POST' && !definition.readOnly,
    leavesChecks: leavesChecksToWrite(definition.rules),
  };
  return {
    ...info,
    response: response.schema,
    run: (request, services) => runEndpoint(definition, plan, request, services),
  };
}

/** The `onRequest` hook counting an endpoint's per-IP limit before the body is read; none without a limit. */
export function limitBeforeBody(
  definition: Pick<EndpointInfo, 'limit'>,
): ((request: FastifyRequest) => Promise<void>) | undefined {
  const { limit } = definition;
  // Limits turned off (RATE_LIMIT_ENABLED=false) cost nothing, not a no-op call per request.
  if (!limit || limit === unlimited) return undefined;
  return async (request) => {
    await limit.consume(clientAddressKey(request.ip));
  };
}

/**
 * One request through the endpoint's steps (endpoint-steps.ts), in the order it meets them: authenticate,
 * the guardian gate, availability (after authentication, so an anonymous caller of a protected route still
 * learns only that it is not signed in), upload counting, then validation, the handler and the explanation
 * of a refusal. The per-IP limit came before all of them, before the body was read (limitBeforeBody).
 */
async function runEndpoint<L extends RuleList, M extends AuthMode, S extends Shape<unknown>>(
  definition: Endpoint<L, M, S>,
  plan: Plan<M>,
  request: FastifyRequest,
  services: RequestServices,
): Promise<Static<S>> {
  const auth = await plan.authenticate(request, services);
  const signedIn: AuthContext | undefined = auth;
  guardianGate(plan.guardianRestricted, signedIn);
  availability(definition.unavailable);
  const counting = countUploads(plan.uploads, signedIn, request.body);
  if (counting) await counting;
  if (signedIn && plan.mayWrite) {
    return noteWrite(services, signedIn.user.id, () => validateAndHandle(definition, plan, request, auth));
  }
  return validateAndHandle(definition, plan, request, auth);
}

/** 5–7. Validation, the handler, and the explanation of a refusal the write made. */
async function validateAndHandle<L extends RuleList, M extends AuthMode, S extends Shape<unknown>>(
  definition: Endpoint<L, M, S>,
  plan: Plan<M>,
  request: FastifyRequest,
  auth: AuthByMode[M],
): Promise<Static<S>> {
  const signedIn: AuthContext | undefined = auth;
  const bag = parameterBag(request.query, request.body, request.params);
  const options = { currentUserId: signedIn?.user.id };
  const params = await validate(definition.rules, bag, options);
  if (!plan.leavesChecks) return definition.handle({ params, auth, request });
  try {
    return await definition.handle({ params, auth, request });
  } catch (error) {
    throw await explainFailure(error, definition.rules, params, bag, options);
  }
}
