import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Download links. A link's token is the HMAC-SHA256 of the export's id under a key only the service holds
 * (service_secrets, migration 0018): 256 bits no one can make without the key, good for that one export
 * and nothing else, and the same each time it is asked for — so the status endpoint shows the very link the
 * mail carries, while the service keeps no token at all (a leaked export table opens nothing). The link
 * dies with its export: a download checks that the export is ready and not past `expires_at`.
 */
export class ExportLinks {
  #key: Promise<Uint8Array> | undefined;

  constructor(
    private readonly loadKey: () => Promise<Uint8Array>,
    /** The API's public base, e.g. `https://accounts.example.com/v1`. */
    private readonly apiBase: string,
  ) {}

  async token(exportId: string): Promise<string> {
    // Loaded once; a failed load is asked again next time.
    this.#key ??= this.loadKey().catch((error: unknown) => {
      this.#key = undefined;
      throw error;
    });
    return createHmac('sha256', await this.#key)
      .update(`data-export\n${exportId}`)
      .digest('base64url');
  }

  async url(exportId: string): Promise<string> {
    return `${this.apiBase}/export/download/${exportId}?token=${await this.token(exportId)}`;
  }

  /** Whether `token` is this export's, compared in constant time. */
  async matches(exportId: string, token: string): Promise<boolean> {
    const expected = Buffer.from(await this.token(exportId));
    const given = Buffer.from(token);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}
