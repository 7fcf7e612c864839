import type { Transporter } from 'nodemailer';
import type { MailConfig, SmtpConfig } from '../config/mail.js';
import { noTracing, type Tracing } from '../lib/tracing.js';

/** One rendered mail, ready to hand to a transport. */
export interface OutgoingMail {
  /** The outbox row's id (for log lines; never the body). */
  id: string;
  kind: string;
  to: string;
  subject: string;
  text: string;
  html: string;
}

export interface MailLogger {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

/**
 * Delivers one mail or throws. Chosen once by MAIL_TRANSPORT. Nothing here touches the database: the outbox
 * (mailer.ts) decides what to send and records the outcome.
 */
export interface MailTransport {
  readonly name: 'log' | 'smtp';
  /**
   * Whether the outbox row is the mail itself (the log transport): it keeps its body, and it is delivered
   * when it commits, so it is written as sent and `send` only announces it. Otherwise the row is pending
   * until `send` has handed the mail on, and a sent row loses its body.
   */
  readonly rowIsTheMail: boolean;
  send(mail: OutgoingMail): Promise<void>;
  close(): Promise<void>;
}

/** What a failed send records: the SMTP reply or socket error, never the message. */
export function describeError(error: unknown): string {
  const details = error as { code?: unknown; responseCode?: unknown; message?: unknown } | undefined;
  const parts = [details?.code, details?.responseCode, details?.message].filter(
    (part) => typeof part === 'string' || typeof part === 'number',
  );
  return (parts.join(' ') || 'unknown error').slice(0, 500);
}

/** `kim@example.com` → `k***@example.com`: enough to tell mails apart in a log, not the whole address. */
export function maskAddress(address: string): string {
  const at = address.lastIndexOf('@');
  if (at < 1) return '***';
  return `${address.slice(0, 1)}***${address.slice(at)}`;
}

/**
 * Development default: the outbox row is the mail (read its `text` for the link), and one log line says it
 * was "sent" — without the body, which carries a secret link.
 */
export function logTransport(logger: MailLogger): MailTransport {
  return {
    name: 'log',
    rowIsTheMail: true,
    send: async (mail) => {
      logger.info(
        { mail_id: mail.id, kind: mail.kind, to: maskAddress(mail.to), subject: mail.subject },
        'mail written to the outbox (MAIL_TRANSPORT=log): read mail_outbox for its body',
      );
    },
    close: async () => {},
  };
}

/**
 * SMTP through nodemailer: STARTTLS whenever the server offers it (nodemailer's default; `smtps://` is TLS
 * from the start), certificates checked, and every wait bounded so a stalled server fails the send instead
 * of hanging it. One connection per mail: lifecycle mail is rare, and nothing is left open to close.
 */
export function smtpTransport(smtp: SmtpConfig, from: string): MailTransport {
  // nodemailer is loaded at the first send, not at start: most processes (tests, CLI commands) never send.
  let transporter: Transporter | undefined;
  const open = async (): Promise<Transporter> => {
    const { createTransport } = await import('nodemailer');
    transporter ??= createTransport({
      host: smtp.host,
      port: smtp.port,
      secure: smtp.secure,
      ...(smtp.auth ? { auth: smtp.auth } : {}),
      connectionTimeout: smtp.timeoutMs,
      greetingTimeout: smtp.timeoutMs,
      socketTimeout: smtp.timeoutMs,
      dnsTimeout: smtp.timeoutMs,
      // nodemailer logs nothing unless given a logger; keep it so (its debug output would include the body).
      logger: false,
      debug: false,
    });
    return transporter;
  };
  return {
    name: 'smtp',
    rowIsTheMail: false,
    send: async (mail) => {
      await (await open()).sendMail({
        from,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
      });
    },
    close: async () => {
      transporter?.close();
    },
  };
}

/** A `mail send` span around each send (its kind and transport, never the address); as it is when off. */
export function tracedTransport(transport: MailTransport, tracing: Tracing): MailTransport {
  if (!tracing.enabled) return transport;
  return {
    name: transport.name,
    rowIsTheMail: transport.rowIsTheMail,
    send: (mail) =>
      tracing.span('mail send', { 'mail.kind': mail.kind, 'mail.transport': transport.name }, () =>
        transport.send(mail),
      ),
    close: () => transport.close(),
  };
}

export function createMailTransport(
  config: MailConfig,
  logger: MailLogger,
  tracing: Tracing = noTracing,
): MailTransport {
  if (config.transport === 'smtp' && config.smtp) {
    return tracedTransport(smtpTransport(config.smtp, config.from), tracing);
  }
  return tracedTransport(logTransport(logger), tracing);
}
