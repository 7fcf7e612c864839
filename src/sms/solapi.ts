import { createHmac, randomBytes } from 'node:crypto';
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import type { SolapiConfig } from '../config/sms.js';

/** SOLAPI refused or failed the message; `status` is its HTTP status (0: no answer). */
export class SolapiError extends Error {
  constructor(
    readonly status: number,
    readonly errorCode: string,
    message: string,
  ) {
    super(message);
    this.name = 'SolapiError';
  }
}

/**
 * SOLAPI's `Authorization` header: `HMAC-SHA256 apiKey=…, date=…, salt=…, signature=…`, the signature being
 * the hex HMAC-SHA256 of the date followed by the salt, keyed by the API secret. A fresh salt and date each
 * request: SOLAPI refuses a salt seen before and a date off by more than 15 minutes.
 */
export function solapiAuthorization(apiKey: string, apiSecret: string, now = new Date()): string {
  const date = now.toISOString();
  const salt = randomBytes(32).toString('hex');
  const signature = createHmac('sha256', apiSecret)
    .update(date + salt)
    .digest('hex');
  return `HMAC-SHA256 apiKey=${apiKey}, date=${date}, salt=${salt}, signature=${signature}`;
}

/** The recipient as SOLAPI takes it: national digits (`01012345678`) and the country calling code. */
function recipient(e164: string): { to: string; country: string } {
  const parsed = parsePhoneNumberFromString(e164);
  if (parsed === undefined) throw new SolapiError(0, 'InvalidRecipient', 'not an E.164 number');
  // Korean numbers are dialled with their trunk 0 (010…); SOLAPI reads them so.
  const national = parsed.formatNational().replace(/\D/g, '');
  return { to: national, country: parsed.countryCallingCode };
}

/**
 * Sends one SMS through SOLAPI's REST API (`POST /messages/v4/send`). The one place the service talks to
 * SOLAPI, so a tracing span can wrap it. Its SDK (`solapi`) is not used: it fixes the API's address, which
 * the tests point at a fake of their own, and brings two libraries for one signed request. Bounded by
 * SOLAPI_TIMEOUT; any answer but a 2xx with a message id throws.
 */
export async function sendSolapiMessage(
  config: SolapiConfig,
  message: { to: string; text: string },
): Promise<{ id: string }> {
  const { to, country } = recipient(message.to);
  let response: Response;
  try {
    response = await fetch(`${config.apiUrl}/messages/v4/send`, {
      method: 'POST',
      headers: {
        authorization: solapiAuthorization(config.apiKey, config.apiSecret),
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        message: { to, from: config.sender, text: message.text, type: 'SMS', country },
      }),
      signal: AbortSignal.timeout(config.timeoutMs),
      redirect: 'error',
    });
  } catch (error) {
    throw new SolapiError(0, 'NetworkError', (error as Error).message);
  }
  const body = (await response.json().catch(() => ({}))) as {
    messageId?: unknown;
    errorCode?: unknown;
    errorMessage?: unknown;
  };
  if (!response.ok || typeof body.messageId !== 'string') {
    const code = typeof body.errorCode === 'string' ? body.errorCode : 'UnexpectedAnswer';
    const text = typeof body.errorMessage === 'string' ? body.errorMessage : `HTTP ${response.status}`;
    throw new SolapiError(response.status, code, text.slice(0, 200));
  }
  return { id: body.messageId };
}
