import type { Executor } from '../../db/transaction.js';
import type { OneTimeCodes } from '../../modules/one-time-codes/service.js';
import type { SmsSender } from '../../sms/sender.js';
import type { OutgoingSms } from '../../sms/transport.js';
import { type CodeSmsPurpose, renderCodeSms } from '../../sms/wording.js';
import type { Locale } from '../../validation/messages.js';

/** The kind an outbox row of a code's SMS carries. */
export const PHONE_CODE_KIND = 'phone_code';

/**
 * A profile's code is filed under the number and the account: two accounts adding one number each hold a
 * live code (neither ends the other's), and the unique index on verified numbers decides between them. A
 * sign-in code is filed under the number alone.
 */
export function profileCodeAddress(e164: string, userId: string): string {
  return `${e164}/${userId}`;
}

/**
 * Issues a code for a number and writes its SMS, in one transaction: the message exists exactly when its
 * code does (the outbox sends it after commit, or retries it), and never outlives it.
 */
export class PhoneCodeTexts {
  constructor(
    private readonly codes: OneTimeCodes,
    private readonly sms: SmsSender,
    /** The service's name the message starts with (APP_NAME). */
    private readonly service: string,
  ) {}

  /** `codeAddress`: what the code is filed under, when not the number itself (phoneCodeAddress). */
  async issueWithin(
    trx: Executor,
    e164: string,
    purpose: CodeSmsPurpose,
    locale: Locale,
    codeAddress = e164,
  ): Promise<OutgoingSms> {
    const issued = await this.codes.issueWithin(trx, 'phone', codeAddress, purpose);
    return this.sms.queueWithin(trx, {
      to: e164,
      kind: PHONE_CODE_KIND,
      text: renderCodeSms(locale, this.service, purpose, issued.code),
      expiresAt: new Date(Date.now() + issued.validForMs),
    });
  }

  sendSoon(message: OutgoingSms): void {
    this.sms.sendSoon(message);
  }
}
