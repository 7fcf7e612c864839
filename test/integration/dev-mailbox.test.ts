import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatMail, type Mailbox, type ReceivedMail, startMailbox } from '../../src/dev/mailbox.js';
import { smtpTransport } from '../../src/mail/transport.js';

/** `accounts dev mailbox`: a real SMTP sink that receives what the service's SMTP transport sends. */
describe('development mailbox', () => {
  let mailbox: Mailbox;
  const received: ReceivedMail[] = [];

  beforeAll(async () => {
    mailbox = await startMailbox({ port: 0, onMail: (mail) => received.push(mail) });
  });
  afterAll(async () => {
    await mailbox?.close();
  });

  it('accepts a mail, with or without a login, and hands it over parsed', async () => {
    for (const auth of [undefined, { user: 'dev', pass: 'anything' }]) {
      const transport = smtpTransport(
        { host: '127.0.0.1', port: mailbox.port, secure: false, auth, timeoutMs: 5000 },
        'Accounts <no-reply@localhost>',
      );
      await transport.send({
        id: 'm1',
        kind: 'password_reset',
        to: 'kim@example.com',
        subject: '비밀번호 재설정 안내',
        text: 'Open http://127.0.0.1:8080/reset-password?token=abc\n',
        html: '<p>Open</p>',
      });
      await transport.close();
    }
    expect(received).toHaveLength(2);
    expect(received[0]).toEqual({
      from: 'no-reply@localhost',
      to: ['kim@example.com'],
      subject: '비밀번호 재설정 안내',
      text: 'Open http://127.0.0.1:8080/reset-password?token=abc\n',
    });
    const printed = formatMail(received[0] as ReceivedMail);
    expect(printed).toContain('To:      kim@example.com');
    expect(printed).toContain('Subject: 비밀번호 재설정 안내');
    expect(printed).toContain('reset-password?token=abc');
  });
});
