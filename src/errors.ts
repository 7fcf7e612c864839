/**
 * The typed errors services throw. They carry no HTTP knowledge, only a stable code: the catalogue
 * (`http/error-catalogue.ts`) says once what each code is on the wire (status, `error_type`, message, `data`,
 * log level), and docs/api.md lists the same rows.
 */

import type { ServiceErrorCode } from './error-codes.js';

export type { ServiceErrorCode };

/** One failed rule of one field; rendered into a message in the request's language by the HTTP layer. */
export interface RuleFailure {
  rule: string;
  params?: Record<string, string | number>;
}

export type FieldFailures = Record<string, RuleFailure[]>;

/** Base of every error a service throws on purpose; anything else reaching the HTTP layer is a fault. */
export abstract class ServiceError extends Error {
  /** Which catalogue entry answers it. */
  abstract readonly code: ServiceErrorCode;
}

export class ValidationError extends ServiceError {
  readonly code: ServiceErrorCode = 'validation_failed';
  readonly failures: FieldFailures;

  constructor(failures: FieldFailures) {
    // No stack trace: a 422 is an answer, never logged with a stack, and capturing one was ~2% of the CPU
    // of a uniqueness check (validate/email answers "taken" with one of these).
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(`Validation failed: ${Object.keys(failures).join(', ')}`);
    Error.stackTraceLimit = stackTraceLimit;
    this.failures = failures;
    this.name = 'ValidationError';
  }

  static taken(field: string): ValidationError {
    return new ValidationError({ [field]: [{ rule: 'unique' }] });
  }

  /** Laravel's `exists` failure: "The selected :attribute is invalid." */
  static notFound(field: string): ValidationError {
    return new ValidationError({ [field]: [{ rule: 'exists' }] });
  }
}

/**
 * An Idempotency-Key sent again with other parameters: a 422 on the header alone. It says nothing about the
 * parameters, so the uniqueness checks a refused write would add (http/endpoint.ts) are not made for it.
 */
export class IdempotencyKeyReusedError extends ValidationError {
  constructor() {
    super({ 'Idempotency-Key': [{ rule: 'idempotency_reused' }] });
    this.name = 'IdempotencyKeyReusedError';
  }
}

/** Email login with wrong credentials, or a provider that rejects the token. */
export class InvalidCredentialsError extends ServiceError {
  readonly code = 'invalid_credentials';
  constructor() {
    super('The login credentials are invalid.');
    this.name = 'InvalidCredentialsError';
  }
}

/** A provider vouched for an identity that no account is linked to. */
export class NotRegisteredError extends ServiceError {
  readonly code = 'not_registered';
  constructor() {
    super('No account is linked to this identity.');
    this.name = 'NotRegisteredError';
  }
}

/**
 * The credentials were right but an operator disabled the account. Only said to someone who proved the
 * credentials (a wrong password still gets InvalidCredentialsError), so it tells a guesser nothing.
 */
export class AccountDisabledError extends ServiceError {
  readonly code = 'account_disabled';
  constructor() {
    super('This account is disabled.');
    this.name = 'AccountDisabledError';
  }
}

/**
 * The credentials were right but the account is scheduled for deletion (DELETION_GRACE_DAYS): the owner
 * learns when it goes and can take it back (auth/deletion/cancel). Like AccountDisabledError, only said to
 * someone who proved the credentials.
 */
export class AccountDeletionScheduledError extends ServiceError {
  readonly code = 'deletion_scheduled';
  constructor(readonly scheduledFor: Date) {
    super('This account is scheduled for deletion.');
    this.name = 'AccountDeletionScheduledError';
  }
}

/** A protected route without a valid token. */
export class UnauthenticatedError extends ServiceError {
  readonly code = 'unauthenticated';
  constructor() {
    super('Unauthenticated.');
    this.name = 'UnauthenticatedError';
  }
}

export class NotFoundError extends ServiceError {
  readonly code = 'not_found';
  constructor(what = 'resource') {
    super(`${what} not found`);
    this.name = 'NotFoundError';
  }
}

/** Signed in, but not allowed to do this to this resource (e.g. delete someone else's post). */
export class ForbiddenError extends ServiceError {
  readonly code = 'forbidden';
  constructor() {
    super('This action is unauthorized.');
    this.name = 'ForbiddenError';
  }
}

/** A state change of the admin API without the session's CSRF token (or a sign-in not from our pages). */
export class CsrfRefusedError extends ServiceError {
  readonly code = 'csrf_refused';
  constructor() {
    super('The CSRF token is missing or wrong.');
    this.name = 'CsrfRefusedError';
  }
}

/** A request to the admin API from outside CONSOLE_ALLOWED_NETWORKS. */
export class NetworkRefusedError extends ServiceError {
  readonly code = 'network_refused';
  constructor() {
    super('Staff may not sign in from this network.');
    this.name = 'NetworkRefusedError';
  }
}

/** A write transaction failed; everything it wrote was rolled back. */
export class CommitFailedError extends ServiceError {
  readonly code = 'commit_failed';
  constructor(cause: unknown) {
    super('Failed to commit transaction.', { cause });
    this.name = 'CommitFailedError';
  }
}

/**
 * The database (or another dependency we own) cannot be reached. `retryAfterSeconds`, when given, is sent as
 * Retry-After: the failure is one a retry soon is expected to get past (a renderer replaced, a queue drained).
 */
export class ServiceUnavailableError extends ServiceError {
  readonly code: ServiceErrorCode = 'service_unavailable';
  constructor(
    cause?: unknown,
    readonly retryAfterSeconds?: number,
  ) {
    super('Service Unavailable', { cause });
    this.name = 'ServiceUnavailableError';
  }
}

/**
 * Load shedding: a bounded queue (password hashing, image rendering) is full, so the request is refused at once with a 503
 * and a Retry-After rather than queued until it times out. Expected under overload: not an error to page on.
 */
export class OverloadedError extends ServiceUnavailableError {
  override readonly code: ServiceErrorCode = 'overloaded';
  constructor(detail: string) {
    super(new Error(detail), 1);
    this.name = 'OverloadedError';
  }
}

/** An identity provider could not be reached or answered garbage. */
export class ProviderUnavailableError extends ServiceError {
  readonly code = 'provider_unavailable';
  constructor(detail: string, cause?: unknown) {
    super(`Identity provider unavailable: ${detail}`, { cause });
    this.name = 'ProviderUnavailableError';
  }
}

/**
 * An identity provider the service knows (PROVIDERS) but this deployment has not configured: its routes exist
 * and are documented, and say what an operator must set. `variables`: by PROVIDER_<NAME>_KIND, the variables
 * that configure the provider as that kind.
 */
export class ProviderNotConfiguredError extends ServiceError {
  readonly code = 'provider_not_configured';
  constructor(
    readonly provider: string,
    readonly variables: Readonly<Record<string, readonly string[]>>,
  ) {
    super(`Identity provider not configured: ${provider}`);
    this.name = 'ProviderNotConfiguredError';
  }
}

/**
 * The password (or provider token) proved right, and the account has a second factor on: no token yet. The
 * client finishes the sign-in at auth/login/second-factor with `challenge` (256 random bits, shown once).
 */
export class SecondFactorRequiredError extends ServiceError {
  readonly code = 'second_factor_required';
  constructor(readonly challenge: string) {
    super('A second factor is required.');
    this.name = 'SecondFactorRequiredError';
  }
}

/** Two-factor authentication asked of a deployment without SECRETS_KEY, which its secrets are sealed with. */
export class SecondFactorNotConfiguredError extends ServiceError {
  readonly code = 'second_factor_not_configured';
  readonly variables = ['SECRETS_KEY'] as const;

  constructor() {
    super('Second factor not configured: SECRETS_KEY is not set');
    this.name = 'SecondFactorNotConfiguredError';
  }
}

/** An access token asked of a deployment without SECRETS_KEY, which the signing keys are sealed with. */
export class AccessTokensNotConfiguredError extends ServiceError {
  readonly code = 'access_tokens_not_configured';
  readonly variables = ['SECRETS_KEY'] as const;
  override readonly name = 'AccessTokensNotConfiguredError';
  override readonly message = 'Access tokens not configured: SECRETS_KEY is not set';
}

/**
 * A passkey ceremony on a deployment whose relying-party ID is an IP address (derived from an IP-address
 * PUBLIC_URL): browsers make and use passkeys only for a domain name, so the ceremony could never succeed.
 */
export class PasskeysUnavailableError extends ServiceError {
  readonly code = 'passkeys_unavailable';
  constructor(readonly rpId: string) {
    super(`Passkeys need a domain name: the relying party is the IP address ${rpId}`);
    this.name = 'PasskeysUnavailableError';
  }
}

export class TooManyRequestsError extends ServiceError {
  readonly code = 'too_many_requests';
  constructor(readonly retryAfterSeconds: number) {
    super('Too Many Attempts.');
    this.name = 'TooManyRequestsError';
  }
}

/**
 * A child under 14 whose legal guardian has not consented yet (PIPA art. 22-2) asked for something that
 * writes or publishes: reading, signing in and asking a guardian still work (docs/identity.md).
 */
export class GuardianConsentRequiredError extends ServiceError {
  readonly code = 'guardian_consent_required';
  constructor() {
    super("A legal guardian's consent is required.");
    this.name = 'GuardianConsentRequiredError';
  }
}

/** Identity verification asked of a deployment without PortOne (PORTONE_*): its routes say what to set. */
export class IdentityVerificationNotConfiguredError extends ServiceError {
  readonly code = 'identity_verification_not_configured';
  constructor(
    readonly variables: readonly string[] = ['PORTONE_API_SECRET', 'PORTONE_STORE_ID', 'PORTONE_CHANNEL_KEY'],
  ) {
    super('Identity verification not configured: PORTONE_* is not set');
    this.name = 'IdentityVerificationNotConfiguredError';
  }
}

/**
 * The verified person already holds another live account (IDENTITY_ONE_ACCOUNT_PER_PERSON). Which one is never
 * said: the answer would tell whoever verified which account a person has.
 */
export class IdentityInUseError extends ServiceError {
  readonly code = 'identity_in_use';
  constructor() {
    super('This person already has an account.');
    this.name = 'IdentityInUseError';
  }
}
