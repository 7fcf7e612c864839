import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { isConnectionError } from '../db/errors.js';
import {
  AccountDeletionScheduledError,
  AccountDisabledError,
  CommitFailedError,
  ForbiddenError,
  GuardianConsentRequiredError,
  IdentityInUseError,
  IdentityVerificationNotConfiguredError,
  InvalidCredentialsError,
  NotFoundError,
  NotRegisteredError,
  OverloadedError,
  PasskeysUnavailableError,
  ProviderNotConfiguredError,
  ProviderUnavailableError,
  SecondFactorNotConfiguredError,
  SecondFactorRequiredError,
  ServiceUnavailableError,
  TooManyRequestsError,
  UnauthenticatedError,
  ValidationError,
} from '../errors.js';
import { preferredLocale, renderFailures } from '../validation/messages.js';
import { BodyError, streamedPastCeiling } from './body-parsers.js';
import { type ErrorEnvelope, failure } from './envelope.js';

/** Every error response of the service, by status (docs/api.md lists them). */
export const notFound = (): ErrorEnvelope => failure(404, 'NotFoundHttpException', 'Not Found');
export const methodNotAllowed = (): ErrorEnvelope =>
  failure(405, 'MethodNotAllowedHttpException', 'Method Not Allowed');
export const serviceUnavailable = (): ErrorEnvelope =>
  failure(503, 'ServiceUnavailableHttpException', 'Service Unavailable');
const internalError = (): ErrorEnvelope => failure(500, 'InternalServerError', 'Internal Server Error');

/** Errors Fastify itself raises before a handler runs (body parsing, limits, content types). */
function frameworkError(error: FastifyError): ErrorEnvelope | undefined {
  switch (error.statusCode) {
    case 400:
      return failure(400, 'BadRequestHttpException', 'Bad Request', {
        body: [
          error instanceof BodyError
            ? error.message
            : error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY'
              ? 'The body is empty.'
              : 'The body could not be parsed.',
        ],
      });
    case 413:
      return failure(413, 'PayloadTooLargeHttpException', 'Payload Too Large');
    case 415:
      return failure(415, 'UnsupportedMediaTypeHttpException', 'Unsupported Media Type');
    case 404:
      return notFound();
    case 408:
      return failure(408, 'RequestTimeoutHttpException', 'Request Timeout');
    case 405:
      return methodNotAllowed();
    default:
      return undefined;
  }
}

/** busboy's words for a multipart body it cannot read (no boundary, broken part headers, cut short). */
const MALFORMED_MULTIPART =
  /^(Multipart: Boundary not found|Malformed part header|Unexpected end of (form|multipart data)|Part terminated early)/;

/** The one place that turns an error into a status and an envelope. */
export function toErrorEnvelope(error: unknown, request: FastifyRequest): ErrorEnvelope {
  if (error instanceof ValidationError) {
    const locale = preferredLocale(request.headers['accept-language']);
    return failure(
      422,
      'ValidationException',
      'Unprocessable Entity',
      renderFailures(error.failures, locale),
    );
  }
  if (error instanceof InvalidCredentialsError) {
    return failure(401, 'Unauthorized', 'The login credentials are invalid.', {
      status: 'authentication_failed',
    });
  }
  if (error instanceof NotRegisteredError) {
    return failure(401, 'Unauthorized', 'No account is linked to this identity.', {
      status: 'not_registered',
    });
  }
  if (error instanceof AccountDisabledError) {
    return failure(401, 'Unauthorized', 'This account is disabled.', { status: 'account_disabled' });
  }
  if (error instanceof SecondFactorRequiredError) {
    return failure(401, 'Unauthorized', 'A second factor is required.', {
      status: 'second_factor_required',
      challenge: error.challenge,
      methods: ['totp', 'recovery_code'],
    });
  }
  if (error instanceof AccountDeletionScheduledError) {
    return failure(409, 'ConflictHttpException', 'This account is scheduled for deletion.', {
      status: 'deletion_scheduled',
      scheduled_for: error.scheduledFor.toISOString(),
    });
  }
  if (error instanceof PasskeysUnavailableError) {
    return failure(409, 'ConflictHttpException', 'Passkeys need a domain name.', {
      status: 'passkeys_unavailable',
      rp_id: error.rpId,
    });
  }
  if (error instanceof IdentityInUseError) {
    return failure(409, 'ConflictHttpException', 'This person already has an account.', {
      status: 'identity_in_use',
    });
  }
  if (error instanceof UnauthenticatedError) {
    return failure(401, 'AuthenticationException', 'Unauthenticated.', { status: 'unauthenticated' });
  }
  if (error instanceof NotFoundError) return notFound();
  if (error instanceof ForbiddenError) {
    return failure(403, 'AccessDeniedHttpException', 'This action is unauthorized.');
  }
  if (error instanceof GuardianConsentRequiredError) {
    return failure(403, 'AccessDeniedHttpException', "A legal guardian's consent is required.", {
      status: 'guardian_consent_required',
    });
  }
  if (error instanceof TooManyRequestsError) {
    return failure(429, 'TooManyRequestsHttpException', 'Too Many Attempts.', {
      retry_after: error.retryAfterSeconds,
    });
  }
  if (error instanceof CommitFailedError) {
    return failure(500, 'InternalServerError', 'Failed to commit transaction.');
  }
  if (error instanceof ProviderUnavailableError) {
    return failure(502, 'BadGatewayHttpException', 'Identity provider unavailable.');
  }
  if (error instanceof ProviderNotConfiguredError) {
    return failure(503, 'ServiceUnavailableHttpException', 'Identity provider not configured.', {
      status: 'provider_not_configured',
      provider: error.provider,
      variables: error.variables,
    });
  }
  if (error instanceof SecondFactorNotConfiguredError) {
    return failure(503, 'ServiceUnavailableHttpException', 'Second factor not configured.', {
      status: 'second_factor_not_configured',
      variables: [...error.variables],
    });
  }
  if (error instanceof IdentityVerificationNotConfiguredError) {
    return failure(503, 'ServiceUnavailableHttpException', 'Identity verification not configured.', {
      status: 'identity_verification_not_configured',
      variables: [...error.variables],
    });
  }
  if (error instanceof ServiceUnavailableError || isConnectionError(error)) return serviceUnavailable();
  if (error instanceof Error && MALFORMED_MULTIPART.test(error.message)) {
    return failure(400, 'BadRequestHttpException', 'Bad Request', {
      body: ['The body could not be parsed.'],
    });
  }
  const statusCode = (error as FastifyError | undefined)?.statusCode;
  if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500) {
    const mapped = frameworkError(error as FastifyError);
    if (mapped) return mapped;
    // Any other 4xx a library raises (a multipart JSON part that does not parse, say) is a bad request: the
    // contract's statuses only, and never a library's own wording.
    return failure(400, 'BadRequestHttpException', 'Bad Request', {
      body: ['The body could not be parsed.'],
    });
  }
  return internalError();
}

/**
 * The client went away mid-request (closed or reset its connection while its body was being read): nothing
 * failed on our side, and no answer can reach it. Told apart from a database connection reset by Node's
 * own `aborted` error and by the request's socket being gone.
 */
function clientDisconnected(error: unknown, request: FastifyRequest): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (code === 'ECONNRESET' && message === 'aborted') return true;
  // (`raw.destroyed` is no sign: a request is destroyed once its body has been read in full.)
  return request.raw.socket?.destroyed === true;
}

export function sendError(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (clientDisconnected(error, request)) {
    // Debug, never error: a client can disconnect at will, and must not be able to raise alerts with it.
    request.log.debug({ code: (error as { code?: unknown } | undefined)?.code }, 'client disconnected');
    return reply.code(400).send(failure(400, 'BadRequestHttpException', 'Bad Request'));
  }
  // Whatever the multipart parser made of its cut-off stream, the cause is the size.
  const envelope = streamedPastCeiling(request)
    ? failure(413, 'PayloadTooLargeHttpException', 'Payload Too Large')
    : toErrorEnvelope(error, request);
  const status = envelope.meta.code;
  // A body refused part-way (too large, too slow) is still on its way: the connection is closed after the
  // answer rather than kept alive, so the rest is not read (or sat on) for nothing.
  if (status === 408 || status === 413) reply.header('connection', 'close');
  if (error instanceof OverloadedError) {
    // Load shedding (a full hashing or rendering queue): expected under overload, a warning rather than an
    // error; the client is told when to try again.
    request.log.warn({ status, reason: (error.cause as Error | undefined)?.message }, 'request shed');
  } else if (error instanceof ProviderNotConfiguredError) {
    // A client calling a provider this deployment does not offer: an answer, not a fault, and a client must
    // not be able to raise alerts at will; the operator still sees which provider is asked for.
    request.log.info({ status, provider: error.provider }, 'request refused');
  } else if (
    error instanceof SecondFactorNotConfiguredError ||
    error instanceof IdentityVerificationNotConfiguredError
  ) {
    // The same: an answer about this deployment's set-up, not a fault a client can raise alerts with.
    request.log.info({ status, variables: error.variables }, 'request refused');
  } else if (status >= 500) {
    // Logged with the request id (pino binds it); the client sees only the envelope.
    request.log.error({ err: error }, 'request failed');
  } else if (status === 401 || status === 429) {
    request.log.info({ status, error_type: envelope.meta.error_type }, 'request refused');
  }
  if (error instanceof TooManyRequestsError || error instanceof ServiceUnavailableError) {
    if (error.retryAfterSeconds !== undefined) reply.header('retry-after', String(error.retryAfterSeconds));
  }
  return reply.code(status).type('application/json; charset=utf-8').send(envelope);
}
