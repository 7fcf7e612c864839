import {
  IdentityVerificationClient,
  IdentityVerificationError,
  type VerifiedIdentityVerification,
} from '@portone/server-sdk/identityVerification';
import type { PortOneConfig } from '../../config/identity.js';
import { ServiceUnavailableError } from '../../errors.js';
import { noTracing, type Tracing } from '../../lib/tracing.js';

/** What PortOne says of one verification id. */
export type PortOneAnswer =
  | { kind: 'verified'; verification: VerifiedIdentityVerification }
  /** READY (not finished) or FAILED, or a status this SDK does not know. */
  | { kind: 'not_verified'; status: string }
  /** No such verification in our store: never made, made in another store, or a malformed id. */
  | { kind: 'unknown' };

/** Asks PortOne about a verification id; throws ServiceUnavailableError when PortOne cannot say. */
export interface IdentityGateway {
  lookUp(identityVerificationId: string): Promise<PortOneAnswer>;
}

/** PortOne's answers that mean "no such verification here": not found, another store's, a malformed id. */
const UNKNOWN_TYPES = new Set(['IDENTITY_VERIFICATION_NOT_FOUND', 'FORBIDDEN', 'INVALID_REQUEST']);

/** PortOne down, slow, refusing our secret, or answering what no verification looks like. */
export class PortOneUnavailableError extends ServiceUnavailableError {
  constructor(detail: string, cause?: unknown) {
    super(new Error(`PortOne unavailable: ${detail}`, { cause }));
    this.name = 'PortOneUnavailableError';
  }
}

/**
 * PortOne V2 through its SDK (`IdentityVerificationClient`, GET /identity-verifications/{id}?storeId=…).
 *
 * The SDK takes neither a timeout nor a fetch of ours, so the wait is bounded here: the SDK's promise races a
 * timer of PORTONE_TIMEOUT_MS, and at the bell the request is answered 503. The SDK's own request is left to
 * end on its own (undici gives up on a silent server after its 300 s header timeout); its outcome is ignored.
 */
export class PortOneGateway implements IdentityGateway {
  private readonly client: IdentityVerificationClient;

  /** What asking PortOne's API takes: its secret, URL, store and wait (not what the browser pages need). */
  constructor(
    private readonly config: Pick<PortOneConfig, 'apiSecret' | 'apiUrl' | 'storeId' | 'timeoutMs'>,
    /** A `portone identity-verification` span per look-up; fetch() sends its `traceparent` on to PortOne. */
    private readonly tracing: Tracing = noTracing,
  ) {
    this.client = IdentityVerificationClient({ secret: config.apiSecret, baseUrl: config.apiUrl });
  }

  lookUp(identityVerificationId: string): Promise<PortOneAnswer> {
    if (!this.tracing.enabled) return this.ask(identityVerificationId);
    return this.tracing.span('portone identity-verification', {}, () => this.ask(identityVerificationId));
  }

  private async ask(identityVerificationId: string): Promise<PortOneAnswer> {
    let answer: Awaited<ReturnType<IdentityVerificationClient['getIdentityVerification']>>;
    try {
      answer = await this.bounded(
        this.client.getIdentityVerification({ identityVerificationId, storeId: this.config.storeId }),
      );
    } catch (error) {
      if (error instanceof PortOneUnavailableError) throw error;
      if (error instanceof IdentityVerificationError && UNKNOWN_TYPES.has(String(error.data.type))) {
        return { kind: 'unknown' };
      }
      // UNAUTHORIZED (our secret is wrong), a 5xx, a body that is not JSON, a refused connection.
      const type = error instanceof IdentityVerificationError ? String(error.data.type) : 'request failed';
      throw new PortOneUnavailableError(type, error);
    }
    if (answer.status !== 'VERIFIED') return { kind: 'not_verified', status: String(answer.status) };
    const verification = answer as VerifiedIdentityVerification;
    if (verification.id !== identityVerificationId) throw new PortOneUnavailableError('answered another id');
    return { kind: 'verified', verification };
  }

  private bounded<T>(work: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const bell = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new PortOneUnavailableError(`no answer within ${this.config.timeoutMs} ms`)),
        this.config.timeoutMs,
      );
    });
    // The loser's rejection is handled by race (no unhandled rejection when the SDK fails after the bell).
    return Promise.race([work, bell]).finally(() => clearTimeout(timer));
  }
}
