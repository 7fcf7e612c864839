import { expect } from 'vitest';
import type { MailOutboxRow } from '../../src/db/schema.js';
import type { TestApp } from './app.js';
import { postForm } from './http.js';
import { outboxFor, tokenFromText } from './mail.js';

export const EMAIL_CODE = '/v1/auth/email-code';
export const EMAIL_CODE_VERIFY = '/v1/auth/email-code/verify';

/** The code mails to this address, oldest first (log transport: the outbox is the mailbox). */
export async function codeMails(ctx: TestApp, email: string): Promise<MailOutboxRow[]> {
  await ctx.mailer.idle();
  return (await outboxFor(ctx.database.handle, email)).filter((row) => row.kind === 'email_code');
}

/** The six digits of a code mail's text (on a line of their own). */
export function codeFromText(text: string | null | undefined): string {
  const match = /^([0-9]{6})$/m.exec(text ?? '');
  if (!match?.[1]) throw new Error(`no code in: ${text}`);
  return match[1];
}

/** Asks for a code of `purpose` for `email`; returns the newest code mail's code and link token. */
export async function mailedCode(
  ctx: TestApp,
  email: string,
  purpose: 'login' | 'register' = 'login',
): Promise<{ code: string; token: string }> {
  const res = await postForm(ctx.app, EMAIL_CODE, { email, purpose });
  expect(res.json()).toEqual({ meta: { code: 200 }, data: { status: 'sent' } });
  const mail = (await codeMails(ctx, email)).at(-1);
  const text = mail?.text ?? undefined;
  const token = /[?&](?:token|code)=([A-Za-z0-9_-]{43})\b/.exec(text ?? '')?.[1] ?? tokenFromText(text);
  return { code: codeFromText(text), token };
}
