/**
 * The code of each error a service throws, by a stable name: one catalogue entry each (the catalogue adds the
 * refusals only the HTTP layer makes, such as a body that does not parse).
 */
export type ServiceErrorCode =
  | 'validation_failed'
  | 'invalid_credentials'
  | 'not_registered'
  | 'account_disabled'
  | 'second_factor_required'
  | 'unauthenticated'
  | 'forbidden'
  | 'guardian_consent_required'
  | 'not_found'
  | 'deletion_scheduled'
  | 'identity_in_use'
  | 'phone_in_use'
  | 'passkeys_unavailable'
  | 'too_many_requests'
  | 'commit_failed'
  | 'internal_error'
  | 'provider_unavailable'
  | 'service_unavailable'
  | 'overloaded'
  | 'second_factor_not_configured'
  | 'access_tokens_not_configured'
  | 'identity_verification_not_configured'
  | 'sms_not_configured'
  | 'provider_not_configured'
  | 'csrf_refused'
  | 'network_refused'
  | 'enrollment_used'
  | 'enrollment_expired';
