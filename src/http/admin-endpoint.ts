import { timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ForbiddenError, UnauthenticatedError } from '../errors.js';
import type { RateCounter } from '../limits/rate-counter.js';
import { validate } from '../validation/engine.js';
import type { Params, RuleList } from '../validation/rule-list.js';
import type { JsonSchema } from '../validation/types.js';
import { CsrfRefusedError } from './admin-errors.js';
import { parameterBag } from './params.js';
import type { Shape, Static } from './response-schema.js';
import { cookieValue, isSameOriginWebRequest } from './session-cookie.js';

/**
 * The admin API's endpoints (`/admin/v1/…`): declared like the app's (`endpoint` in endpoint.ts),
 * run by steps of their own. Its one credential is the staff session cookie: an app's `api_token`, in any
 * place, is never read here, and the staff cookie is never read by the app's API (session-cookie.ts reads
 * only its own), so neither credential works on the other app.
 */

/** The staff session's cookie. Path=/admin: the console's pages hold no data and call the admin API. */
export const STAFF_COOKIE = 'accounts_staff';
/** The header a state change carries its session's CSRF token in. */
export const CSRF_HEADER = 'x-csrf-token';

/** The signed-in staff member as an admin handler sees them. */
export interface StaffAuth {
  sessionId: string;
  staff: { id: string; email: string; role: string };
  permissions: readonly string[];
  /** The session's CSRF token: every state change sends it back in X-CSRF-Token. */
  csrfToken: string;
}

/** What the admin steps need from the services. */
export interface AdminRequestServices {
  /** The staff session of a cookie's token, or undefined when it is unknown or has ended (idle or absolute). */
  authenticate(token: string): Promise<StaffAuth | undefined>;
  /** Whether CONSOLE_ALLOWED_NETWORKS lets this client address in; refused ones throw. */
  admitAddress(ip: string): void;
}

export type StaffAuthMode = 'staff' | 'none';

export interface StaffByMode {
  staff: StaffAuth;
  none: undefined;
}

export interface AdminHandlerInput<L extends RuleList, M extends StaffAuthMode> {
  params: Params<L>;
  staff: StaffByMode[M];
  request: FastifyRequest;
  /** Sign-in and sign-out set and clear the staff cookie on it. */
  reply: FastifyReply;
}

export interface AdminEndpoint<L extends RuleList, M extends StaffAuthMode, S extends Shape<unknown>> {
  method: 'GET' | 'POST';
  /** Below `/admin/v1`. */
  path: string;
  summary: string;
  description?: string;
  tag: string;
  auth: M;
  /** What the staff member's role must allow (modules/staff/permissions.ts); refused with 403 `forbidden`. */
  permission?: string;
  /**
   * Told of a refusal by `permission` before the 403: where the refusal is itself an access record (an
   * attempt on a user's data is kept, whatever its outcome).
   */
  refused?: (input: RefusedInput) => Promise<void>;
  /** Answers a file rather than the envelope (the CSV export): the handler returns its name and body. */
  download?: { contentType: string };
  /** How many files a multipart body may carry (none unless given: a file part is refused, 413). */
  files?: number;
  /** A per-IP limit counted before the body is read, as the app's endpoints' (`limit` in endpoint.ts). */
  limit?: RateCounter;
  /** Error statuses besides 401, 403 and 422 (documentation). */
  errors?: number[];
  rules: L;
  response: S;
  example: Static<S>;
  handle(input: AdminHandlerInput<L, M>): Promise<Static<S>>;
}

/** What a refusal hook is told: who was refused, and the request (its path's parameters). */
export interface RefusedInput {
  staff: StaffAuth;
  request: FastifyRequest;
}

/** What a download endpoint's handler returns. */
export interface AdminDownload {
  filename: string;
  body: string;
}

/** An admin endpoint of any parameters, as the admin list holds it. */
export interface AnyAdminEndpoint {
  method: 'GET' | 'POST';
  path: string;
  summary: string;
  description?: string;
  tag: string;
  auth: StaffAuthMode;
  permission?: string;
  download?: { contentType: string };
  files?: number;
  limit?: RateCounter;
  errors?: number[];
  rules: RuleList;
  response: JsonSchema;
  example: unknown;
  run(request: FastifyRequest, reply: FastifyReply, services: AdminRequestServices): Promise<unknown>;
}

const sameText = (a: string, b: string) =>
  a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/** The staff session of the request's cookie; refused (401) without one. */
async function staffOf(request: FastifyRequest, services: AdminRequestServices): Promise<StaffAuth> {
  const token = cookieValue(request.headers.cookie, STAFF_COOKIE);
  const auth =
    token !== undefined && /^[A-Za-z0-9_-]{1,512}$/.test(token)
      ? await services.authenticate(token)
      : undefined;
  if (!auth) throw new UnauthenticatedError();
  return auth;
}

/**
 * CSRF: a signed-in state change must carry its session's token in X-CSRF-Token (a synchroniser token,
 * derived from the session's secret, which no other site can read); one without a session (sign-in,
 * enrollment) must come from a page of this origin (the custom header, Sec-Fetch-Site and Origin checks).
 */
function checkCsrf(request: FastifyRequest, staff: StaffAuth | undefined): void {
  if (request.method !== 'POST') return;
  if (staff === undefined) {
    if (!isSameOriginWebRequest(request)) throw new CsrfRefusedError();
    return;
  }
  const sent = request.headers[CSRF_HEADER];
  if (typeof sent !== 'string' || !sameText(sent, staff.csrfToken)) throw new CsrfRefusedError();
}

/** Declares an admin endpoint; its types stay with its handler, inside `run`. */
export function adminEndpoint<L extends RuleList, M extends StaffAuthMode, S extends Shape<unknown>>(
  definition: AdminEndpoint<L, M, S>,
): AnyAdminEndpoint {
  const { handle, response, refused, ...info } = definition;
  return {
    ...info,
    response: response.schema,
    // The steps, in order: the network, the session, CSRF, the permission, validation, the handler.
    run: async (request, reply, services) => {
      services.admitAddress(request.ip);
      const staff = definition.auth === 'staff' ? await staffOf(request, services) : undefined;
      checkCsrf(request, staff);
      const { permission } = definition;
      if (permission !== undefined && !staff?.permissions.includes(permission)) {
        if (refused !== undefined && staff !== undefined) await refused({ staff, request });
        throw new ForbiddenError();
      }
      const bag = parameterBag(request.query, request.body, request.params);
      const params = await validate(definition.rules, bag, {});
      return handle({ params, staff: staff as StaffByMode[M], request, reply });
    },
  };
}
