import { describe, expect, it } from 'vitest';
import { Mailer } from '../../src/mail/mailer.js';
import { OutboxRepo } from '../../src/mail/outbox-repo.js';
import { logTransport, type MailLogger } from '../../src/mail/transport.js';
import { backends, useTestDatabase } from '../helpers/database.js';

const RETRY = { maxAttempts: 3, baseDelayMs: 1000, maxDelayMs: 60_000, intervalMs: 86_400_000 };
const VALUES = {
  username: 'kim',
  link: 'https://accounts.test/verify-email?token=secret-link',
  validForMs: 60_000,
};

/** Keeps every line; `failInfo` makes each info line throw (a log destination that refuses the write). */
function recordingLogger(failInfo = false) {
  const lines: Array<{ level: 'info' | 'warn'; details: object; message: string }> = [];
  const logger: MailLogger = {
    info(details, message) {
      if (failInfo) throw new Error('log destination closed');
      lines.push({ level: 'info', details, message });
    },
    warn(details, message) {
      lines.push({ level: 'warn', details, message });
    },
  };
  return { logger, lines };
}

/**
 * With the log transport the outbox row is the mail: its commit delivers it, so it is written sent and the
 * send after commit only writes the log line. No UPDATE follows, and nothing is left for the retrier.
 */
describe.each(backends)('%s: mail with the log transport', (backend) => {
  const ctx = useTestDatabase(backend);

  const outboxRow = (id: string) =>
    ctx.db
      .selectFrom('mail_outbox')
      .select(['status', 'transport', 'attempts', 'sent_at', 'text'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();

  async function queue(logger: MailLogger, to: string) {
    const mailer = new Mailer({
      outbox: new OutboxRepo(ctx.db),
      transport: logTransport(logger),
      retry: RETRY,
      sendTimeoutMs: 0,
      logger,
    });
    const mail = await mailer.queueWithin(ctx.db, to, 'email_verify', 'en', VALUES);
    if (!mail) throw new Error('no cap here: the mail is written');
    return { mailer, mail, row: await outboxRow(mail.id) };
  }

  it('writes the row sent, by log, with its body; the send logs it without the link', async () => {
    const { logger, lines } = recordingLogger();
    const { mailer, mail, row } = await queue(logger, 'kim@example.com');
    expect(row).toEqual({
      status: 'sent',
      transport: 'log',
      attempts: 1,
      sent_at: expect.any(Date),
      text: expect.stringContaining('token=secret-link'),
    });
    mailer.sendSoon(mail);
    await mailer.idle();
    expect(lines).toEqual([
      {
        level: 'info',
        details: { mail_id: mail.id, kind: 'email_verify', to: 'k***@example.com', subject: mail.subject },
        message: expect.stringContaining('mail written to the outbox'),
      },
    ]);
    // Sent already: the retrier has nothing of it to claim.
    expect(await mailer.retryDue()).toBe(0);
    await mailer.close();
  });

  it('warns, without the address or the link, when the log line cannot be written; the row stays sent', async () => {
    const { logger, lines } = recordingLogger(true);
    const { mailer, mail } = await queue(logger, 'lee@example.com');
    mailer.sendSoon(mail);
    await mailer.idle();
    expect(lines).toEqual([
      {
        level: 'warn',
        details: {
          mail_id: mail.id,
          kind: 'email_verify',
          to: 'l***@example.com',
          err: 'log destination closed',
        },
        message: 'mail written to the outbox but not announced',
      },
    ]);
    expect(JSON.stringify(lines)).not.toContain('secret-link');
    expect(await outboxRow(mail.id)).toEqual({
      status: 'sent',
      transport: 'log',
      attempts: 1,
      sent_at: expect.any(Date),
      text: expect.stringContaining('token=secret-link'),
    });
    await mailer.close();
  });

  it('runs work after the answer, and names a failure of it in the log: the answer has gone', async () => {
    const { logger, lines } = recordingLogger(false);
    const { mailer } = await queue(logger, 'park@example.com');
    await mailer.idle();
    lines.length = 0;
    let ran = false;
    mailer.afterAnswer('a reset link', async () => {
      ran = true;
    });
    // Not before the caller's own continuation: the work waits for the loop's next turn.
    expect(ran).toBe(false);
    mailer.afterAnswer('a reset link', async () => {
      throw new Error('database unreachable');
    });
    await mailer.idle();
    expect(ran).toBe(true);
    expect(lines).toEqual([
      {
        level: 'warn',
        details: { err: 'database unreachable' },
        message: 'a reset link failed after the answer',
      },
    ]);
    await mailer.close();
  });
});
