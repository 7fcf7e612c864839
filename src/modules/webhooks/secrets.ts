import { randomBytes } from 'node:crypto';
import { SecretBox } from '../../lib/secret-box.js';

/** How long the previous secret signs beside the new one after a rotation. */
export const ROTATION_OVERLAP_MS = 24 * 3_600_000;

/** A new endpoint secret: `whsec_` and the base64 of 32 random bytes, as Standard Webhooks writes them. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * Endpoint secrets at rest, sealed with SECRETS_KEY: the service must sign with them, so unlike a token they
 * cannot be hashed, and a copy of the database alone signs nothing. Each is bound to its endpoint's id, so
 * a sealed secret copied onto another endpoint does not open there.
 */
export class WebhookSecrets {
  private readonly box: SecretBox;

  constructor(key: Buffer) {
    this.box = SecretBox.withKey(key);
  }

  seal(secret: string, endpointId: string): string {
    return this.box.seal(Buffer.from(secret, 'utf8'), context(endpointId));
  }

  open(sealed: string, endpointId: string): string {
    return this.box.open(sealed, context(endpointId)).toString('utf8');
  }
}

const context = (endpointId: string) => `webhook-endpoint:${endpointId}`;

/** Opened secrets kept at most: endpoints are few; past this the memo starts again. */
const OPENED_KEPT = 128;

/**
 * The endpoints' secrets as opened, by sealed value: every delivery is signed, and opening one is a
 * decryption, while an endpoint's sealed secret changes only when it is rotated (a new sealed value, a new
 * entry). Nothing here outlives the process, which holds SECRETS_KEY anyway.
 */
export class OpenedSecrets {
  readonly #opened = new Map<string, string>();

  open(secrets: WebhookSecrets, sealed: string, endpointId: string): string {
    const key = `${endpointId} ${sealed}`;
    let secret = this.#opened.get(key);
    if (secret === undefined) {
      secret = secrets.open(sealed, endpointId);
      if (this.#opened.size >= OPENED_KEPT) this.#opened.clear();
      this.#opened.set(key, secret);
    }
    return secret;
  }
}
