import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/**
 * A development mail sink: a real SMTP server on 127.0.0.1 that accepts every mail (any or no login, no
 * TLS) and hands each one to `onMail` instead of delivering it. `accounts dev mailbox` prints them, so a
 * newcomer can follow the verification and password-reset flows by hand. Development only: it keeps nothing
 * and checks nobody.
 */

export interface ReceivedMail {
  from: string;
  to: string[];
  subject: string;
  text: string;
}

export interface Mailbox {
  readonly port: number;
  /** The SMTP_URL that points the service at this sink. */
  readonly url: string;
  close(): Promise<void>;
}

/** Bounds one message, so a runaway client cannot fill the memory of a developer's machine. */
const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

export async function startMailbox(options: {
  port?: number;
  onMail: (mail: ReceivedMail) => void;
  onError?: (error: Error) => void;
}): Promise<Mailbox> {
  const server = new SMTPServer({
    authOptional: true,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    size: MAX_MESSAGE_BYTES,
    logger: false,
    onAuth: (_auth, _session, callback) => callback(null, { user: 'dev' }),
    onData: (stream, session, callback) => {
      simpleParser(stream).then(
        (parsed) => {
          options.onMail({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((recipient) => recipient.address),
            subject: parsed.subject ?? '',
            text: parsed.text ?? '',
          });
          callback();
        },
        (error: Error) => callback(error),
      );
    },
  });
  server.on('error', (error) => options.onError?.(error));
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    url: `smtp://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The printed form of one received mail. */
export function formatMail(mail: ReceivedMail): string {
  return [
    '─'.repeat(72),
    `From:    ${mail.from}`,
    `To:      ${mail.to.join(', ')}`,
    `Subject: ${mail.subject}`,
    '',
    mail.text.trimEnd(),
    '',
  ].join('\n');
}

/** `accounts dev mailbox`: prints every mail it receives until interrupted. */
export async function runMailbox(
  options: { port: number },
  print: (line: string) => void = console.log,
): Promise<void> {
  const mailbox = await startMailbox({
    port: options.port,
    onMail: (mail) => print(formatMail(mail)),
    onError: (error) => print(`mailbox error: ${error.message}`),
  });
  print(`Development mailbox listening on 127.0.0.1:${mailbox.port} (development only: it prints every mail).

Start the service with these settings to send its mail here:

  MAIL_TRANSPORT=smtp SMTP_URL=${mailbox.url} npm start

Ctrl-C stops it.`);
  await new Promise<void>((resolve) => {
    const stop = () => {
      void mailbox.close().then(resolve);
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
