import { createHmac } from 'node:crypto';

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base32 (no padding, case ignored), as the setup answer writes the secret. */
export function base32Decode(text: string): Buffer {
  let bits = 0;
  let value = 0;
  const bytes: number[] = [];
  for (const char of text.toUpperCase().replace(/=+$/, '')) {
    const index = BASE32.indexOf(char);
    if (index === -1) throw new Error(`not base32: ${char}`);
    value = (value << 5) | index;
    bits += 5;
    if (bits >= 8) {
      bytes.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(bytes);
}

/**
 * RFC 6238 TOTP with HMAC-SHA-1, written here from the RFC (and RFC 4226's dynamic truncation) so that the
 * tests compute codes independently of the library the service uses.
 */
export function totpCode(secret: Buffer, unixSeconds: number, digits = 6, period = 30): string {
  const counter = Math.floor(unixSeconds / period);
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const hmac = createHmac('sha1', secret).update(message).digest();
  const offset = (hmac[hmac.length - 1] as number) & 0x0f;
  const binary = hmac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** digits).padStart(digits, '0');
}

/** The code of the current step, or `steps` steps away from it. */
export function currentCode(secretBase32: string, steps = 0): string {
  return totpCode(base32Decode(secretBase32), Math.floor(Date.now() / 1000) + steps * 30);
}
