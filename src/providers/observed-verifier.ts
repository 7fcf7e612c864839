import { performance } from 'node:perf_hooks';
import { InvalidCredentialsError, ProviderUnavailableError } from '../errors.js';
import type { ProviderVerifier } from './verifier.js';

/** ok: genuine; rejected: the provider said no; unavailable: no trustworthy answer; error: anything else. */
export type VerificationOutcome = 'ok' | 'rejected' | 'unavailable' | 'error';

/** Told of every verification's outcome and duration (metrics hook). */
export interface VerificationObserver {
  verified(provider: string, outcome: VerificationOutcome, seconds: number): void;
}

function outcomeOf(error: unknown): VerificationOutcome {
  if (error instanceof InvalidCredentialsError) return 'rejected';
  if (error instanceof ProviderUnavailableError) return 'unavailable';
  return 'error';
}

/** The verifier, reporting each verification to the observer. */
export function observedVerifier(
  verifier: ProviderVerifier,
  observer: VerificationObserver,
): ProviderVerifier {
  return {
    name: verifier.name,
    async verify(claimedUserId, token) {
      const started = performance.now();
      let outcome: VerificationOutcome = 'ok';
      try {
        return await verifier.verify(claimedUserId, token);
      } catch (error) {
        outcome = outcomeOf(error);
        throw error;
      } finally {
        observer.verified(verifier.name, outcome, (performance.now() - started) / 1000);
      }
    },
  };
}
