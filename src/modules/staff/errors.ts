import { ServiceError } from '../../errors.js';

/* The console's own refusals (docs/console.md); each answers from its entry in http/error-catalogue.ts. */

/** An enrollment link opened again after the enrollment it started was completed. */
export class EnrollmentUsedError extends ServiceError {
  readonly code = 'enrollment_used';
  constructor() {
    super('This enrollment link has been used.');
    this.name = 'EnrollmentUsedError';
  }
}

/** An enrollment link older than its 24 hours. */
export class EnrollmentExpiredError extends ServiceError {
  readonly code = 'enrollment_expired';
  constructor() {
    super('This enrollment link has expired.');
    this.name = 'EnrollmentExpiredError';
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
