import { ServiceError } from '../errors.js';

/** A state change of the admin API without the session's CSRF token (or a sign-in not from our pages). */
export class CsrfRefusedError extends ServiceError {
  readonly code = 'csrf_refused';
  constructor() {
    super('The CSRF token is missing or wrong.');
    this.name = 'CsrfRefusedError';
  }
}
