import { ServiceError } from '../../errors.js';

/* The console's own refusals (docs/console.md); each answers from its entry in http/error-catalogue.ts. */

/** Five wrong passwords or codes in a row: refused until CONSOLE_LOCKOUT has passed or an admin unlocks. */
export class StaffLockedError extends ServiceError {
  readonly code = 'staff_locked';
  constructor() {
    super('This staff account is locked.');
    this.name = 'StaffLockedError';
  }
}

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
