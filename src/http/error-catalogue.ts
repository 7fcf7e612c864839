import type { FastifyError } from 'fastify';
import type {
  AccessTokensNotConfiguredError,
  AccountDeletionScheduledError,
  IdentityVerificationNotConfiguredError,
  OverloadedError,
  PasskeysUnavailableError,
  ProviderNotConfiguredError,
  SecondFactorNotConfiguredError,
  SecondFactorRequiredError,
  SmsNotConfiguredError,
  TooManyRequestsError,
  ValidationError,
} from '../errors.js';
import { ServiceUnavailableError } from '../errors.js';
import { preferredLocale, renderFailures } from '../validation/messages.js';
import { BodyError } from './body-parsers.js';
import type { CatalogueEntry, ErrorCode, LogRule, TransportErrorCode } from './catalogue-entry.js';

export type { CatalogueEntry, ErrorCode, LogRule, TransportErrorCode };

/** A 401 or 429: expected, yet worth counting (guessing, a client in a loop). */
const refused: LogRule<unknown> = {
  level: 'info',
  message: 'request refused',
  fields: (_error, entry) => ({ status: entry.status, error_type: entry.type }),
};
/** A fault: logged with its cause and the request id (pino binds it); the client sees only the envelope. */
const failed: LogRule<unknown> = {
  level: 'error',
  message: 'request failed',
  fields: (error) => ({ err: error }),
};
/** An answer about this deployment's set-up, not a fault a client can raise alerts with. */
const notConfigured: LogRule<{ variables: readonly string[] }> = {
  level: 'info',
  message: 'request refused',
  fields: (error, entry) => ({ status: entry.status, variables: error.variables }),
};

const retryWhenSaid = (error: unknown) =>
  error instanceof ServiceUnavailableError ? error.retryAfterSeconds : undefined;

/** Why a body could not be read, in words a client may see: a parser's own, or the general one. */
function bodyProblem(error: unknown): string {
  if (error instanceof BodyError) return error.message;
  if ((error as FastifyError | undefined)?.code === 'FST_ERR_CTP_EMPTY_JSON_BODY')
    return 'The body is empty.';
  return 'The body could not be parsed.';
}

/** An entry whose details and log read the error it answers (each error class names its code). */
const of = <E>(entry: CatalogueEntry<E>): CatalogueEntry => entry;

const badRequest = { status: 400, type: 'BadRequestHttpException', message: 'Bad Request' } as const;
const conflict = { status: 409, type: 'ConflictHttpException' } as const;
const unavailable = { status: 503, type: 'ServiceUnavailableHttpException' } as const;
const internal = { status: 500, type: 'InternalServerError' } as const;

/** Every answer the service refuses with, by code; `errorCode` (http/errors.ts) finds an error's code. */
export const ERROR_CATALOGUE: Readonly<Record<ErrorCode, CatalogueEntry>> = {
  bad_request: badRequest,
  body_unparsable: { ...badRequest, details: (error) => ({ body: [bodyProblem(error)] }) },
  url_unparsable: { ...badRequest, details: () => ({ url: ['The URL could not be parsed.'] }) },
  host_missing: { ...badRequest, details: () => ({ host: ['The Host header is required.'] }) },
  invalid_credentials: {
    status: 401,
    type: 'Unauthorized',
    message: 'The login credentials are invalid.',
    reason: 'authentication_failed',
    log: refused,
  },
  not_registered: {
    status: 401,
    type: 'Unauthorized',
    message: 'No account is linked to this identity.',
    reason: 'not_registered',
    log: refused,
  },
  second_factor_required: of<SecondFactorRequiredError>({
    status: 401,
    type: 'Unauthorized',
    message: 'A second factor is required.',
    reason: 'second_factor_required',
    details: (error) => ({ challenge: error.challenge, methods: ['totp', 'recovery_code'] }),
    log: refused,
  }),
  account_disabled: {
    status: 401,
    type: 'Unauthorized',
    message: 'This account is disabled.',
    reason: 'account_disabled',
    log: refused,
  },
  unauthenticated: {
    status: 401,
    type: 'AuthenticationException',
    message: 'Unauthenticated.',
    reason: 'unauthenticated',
    log: refused,
  },
  metrics_unauthorized: { status: 401, type: 'UnauthorizedHttpException', message: 'Unauthorized' },
  introspection_unauthorized: {
    status: 401,
    type: 'UnauthorizedHttpException',
    message: 'Invalid client.',
    reason: 'invalid_client',
    log: refused,
  },
  forbidden: { status: 403, type: 'AccessDeniedHttpException', message: 'This action is unauthorized.' },
  csrf_refused: {
    status: 403,
    type: 'AccessDeniedHttpException',
    message: 'The CSRF token is missing or wrong.',
    reason: 'csrf_token_invalid',
    log: refused,
  },
  network_refused: {
    status: 403,
    type: 'AccessDeniedHttpException',
    message: 'Staff may not sign in from this network.',
    reason: 'network_refused',
    log: refused,
  },
  enrollment_used: {
    status: 410,
    type: 'GoneHttpException',
    message: 'This enrollment link has been used.',
    reason: 'enrollment_used',
  },
  enrollment_expired: {
    status: 410,
    type: 'GoneHttpException',
    message: 'This enrollment link has expired.',
    reason: 'enrollment_expired',
  },
  guardian_consent_required: {
    status: 403,
    type: 'AccessDeniedHttpException',
    message: "A legal guardian's consent is required.",
    reason: 'guardian_consent_required',
  },
  not_found: { status: 404, type: 'NotFoundHttpException', message: 'Not Found' },
  method_not_allowed: { status: 405, type: 'MethodNotAllowedHttpException', message: 'Method Not Allowed' },
  request_timeout: {
    status: 408,
    type: 'RequestTimeoutHttpException',
    message: 'Request Timeout',
    closeConnection: true,
  },
  deletion_scheduled: of<AccountDeletionScheduledError>({
    ...conflict,
    message: 'This account is scheduled for deletion.',
    reason: 'deletion_scheduled',
    details: (error) => ({ scheduled_for: error.scheduledFor.toISOString() }),
  }),
  identity_in_use: { ...conflict, message: 'This person already has an account.', reason: 'identity_in_use' },
  phone_in_use: {
    ...conflict,
    message: 'This phone number is in use by another account.',
    reason: 'phone_in_use',
  },
  passkeys_unavailable: of<PasskeysUnavailableError>({
    ...conflict,
    message: 'Passkeys need a domain name.',
    reason: 'passkeys_unavailable',
    details: (error) => ({ rp_id: error.rpId }),
  }),
  payload_too_large: {
    status: 413,
    type: 'PayloadTooLargeHttpException',
    message: 'Payload Too Large',
    closeConnection: true,
  },
  unsupported_media_type: {
    status: 415,
    type: 'UnsupportedMediaTypeHttpException',
    message: 'Unsupported Media Type',
  },
  validation_failed: of<ValidationError>({
    status: 422,
    type: 'ValidationException',
    message: 'Unprocessable Entity',
    details: (error, request) =>
      renderFailures(error.failures, preferredLocale(request?.headers['accept-language'])),
  }),
  too_many_requests: of<TooManyRequestsError>({
    status: 429,
    type: 'TooManyRequestsHttpException',
    message: 'Too Many Attempts.',
    details: (error) => ({ retry_after: error.retryAfterSeconds }),
    log: refused,
    retryAfter: (error) => error.retryAfterSeconds,
  }),
  header_fields_too_large: {
    status: 431,
    type: 'RequestHeaderFieldsTooLargeHttpException',
    message: 'Request Header Fields Too Large',
  },
  commit_failed: { ...internal, message: 'Failed to commit transaction.', log: failed },
  internal_error: { ...internal, message: 'Internal Server Error', log: failed },
  provider_unavailable: {
    status: 502,
    type: 'BadGatewayHttpException',
    message: 'Identity provider unavailable.',
    log: failed,
  },
  service_unavailable: {
    ...unavailable,
    message: 'Service Unavailable',
    log: failed,
    retryAfter: retryWhenSaid,
  },
  overloaded: of<OverloadedError>({
    ...unavailable,
    message: 'Service Unavailable',
    // Load shedding (a full hashing or rendering queue): expected under overload, a warning rather than an
    // error; the client is told when to try again.
    log: {
      level: 'warn',
      message: 'request shed',
      fields: (error, entry) => ({
        status: entry.status,
        reason: (error.cause as Error | undefined)?.message,
      }),
    },
    retryAfter: (error) => error.retryAfterSeconds,
  }),
  second_factor_not_configured: of<SecondFactorNotConfiguredError>({
    ...unavailable,
    message: 'Second factor not configured.',
    reason: 'second_factor_not_configured',
    details: (error) => ({ variables: [...error.variables] }),
    log: notConfigured,
  }),
  access_tokens_not_configured: of<AccessTokensNotConfiguredError>({
    ...unavailable,
    message: 'Access tokens not configured.',
    reason: 'access_tokens_not_configured',
    details: (error) => ({ variables: [...error.variables] }),
    log: notConfigured,
  }),
  identity_verification_not_configured: of<IdentityVerificationNotConfiguredError>({
    ...unavailable,
    message: 'Identity verification not configured.',
    reason: 'identity_verification_not_configured',
    details: (error) => ({ variables: [...error.variables] }),
    log: notConfigured,
  }),
  sms_not_configured: of<SmsNotConfiguredError>({
    ...unavailable,
    message: 'SMS not configured.',
    reason: 'sms_not_configured',
    details: (error) => ({ variables: [...error.variables] }),
    log: notConfigured,
  }),
  provider_not_configured: of<ProviderNotConfiguredError>({
    ...unavailable,
    message: 'Identity provider not configured.',
    reason: 'provider_not_configured',
    details: (error) => ({ provider: error.provider, variables: error.variables }),
    // A client calling a provider this deployment does not offer: the operator still sees which one is asked.
    log: {
      level: 'info',
      message: 'request refused',
      fields: (error, entry) => ({ status: entry.status, provider: error.provider }),
    },
  }),
};
