import type { AddressInfo } from 'node:net';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { sql } from 'kysely';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import type { DatabaseHandle } from '../../src/db/client.js';
import type { MailOutboxRow } from '../../src/db/schema.js';

/** A real SMTP server on 127.0.0.1 that keeps what it receives, parsed; it can be told to refuse mail. */
export interface TestSmtp {
  readonly url: string;
  readonly mails: ParsedMail[];
  /** While true every recipient is refused with a 550 (the server is up but will not take the mail). */
  refuse: boolean;
  /** Resolves with the first mail (already received or yet to come) to this address; bounded by a timeout. */
  mailTo(address: string, timeoutMs?: number): Promise<ParsedMail>;
  close(): Promise<void>;
}

/** The lower-cased addresses a parsed mail was sent to. */
export function recipients(mail: ParsedMail): string[] {
  const to = Array.isArray(mail.to) ? mail.to : mail.to ? [mail.to] : [];
  return to.flatMap((group) => group.value.map((entry) => (entry.address ?? '').toLowerCase()));
}

export async function startTestSmtp(): Promise<TestSmtp> {
  const waiters: Array<{ address: string; resolve: (mail: ParsedMail) => void }> = [];
  const mails: ParsedMail[] = [];
  const state = { refuse: false };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo: (_address, _session, callback) => {
      if (state.refuse) {
        const error = Object.assign(new Error('Mailbox unavailable'), { responseCode: 550 });
        callback(error);
        return;
      }
      callback();
    },
    onData: (stream, _session, callback) => {
      simpleParser(stream).then(
        (mail) => {
          mails.push(mail);
          for (const waiter of [...waiters]) {
            if (recipients(mail).includes(waiter.address)) {
              waiters.splice(waiters.indexOf(waiter), 1);
              waiter.resolve(mail);
            }
          }
          callback();
        },
        (error: Error) => callback(error),
      );
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    get refuse() {
      return state.refuse;
    },
    set refuse(value: boolean) {
      state.refuse = value;
    },
    mailTo(address, timeoutMs = 10_000) {
      const wanted = address.toLowerCase();
      const received = mails.find((mail) => recipients(mail).includes(wanted));
      if (received) return Promise.resolve(received);
      return new Promise<ParsedMail>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(waiter), 1);
          reject(new Error(`no mail to ${address} within ${timeoutMs} ms`));
        }, timeoutMs);
        const waiter = {
          address: wanted,
          resolve: (mail: ParsedMail) => {
            clearTimeout(timer);
            resolve(mail);
          },
        };
        waiters.push(waiter);
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * A TCP front for an SMTP server. While `stall` is true it accepts connections and never says a word (an SMTP
 * server that hangs before its greeting); otherwise it passes each connection through to `target`.
 */
export interface SmtpFront {
  readonly url: string;
  stall: boolean;
  close(): Promise<void>;
}

export async function startSmtpFront(target: string): Promise<SmtpFront> {
  const targetPort = Number(new URL(target).port);
  const sockets = new Set<Socket>();
  const state = { stall: true };
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const server: Server = createServer((socket) => {
    track(socket);
    if (state.stall) return;
    const upstream = connect(targetPort, '127.0.0.1');
    track(upstream);
    socket.pipe(upstream).pipe(socket);
    socket.on('close', () => upstream.destroy());
    upstream.on('close', () => socket.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    get stall() {
      return state.stall;
    },
    set stall(value: boolean) {
      state.stall = value;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** The token in a link of a mail's text (`…?token=<43 base64url characters>`). */
export function tokenFromText(text: string | undefined): string {
  const match = /[?&]token=([A-Za-z0-9_-]{43})\b/.exec(text ?? '');
  if (!match?.[1]) throw new Error(`no token link in: ${text}`);
  return match[1];
}

/** Every outbox row for this address, oldest first. */
export async function outboxFor(handle: DatabaseHandle, address: string): Promise<MailOutboxRow[]> {
  const { rows } = await sql<MailOutboxRow>`
    SELECT * FROM mail_outbox WHERE lower(to_address) = lower(${address}) ORDER BY created_at, id`.execute(
    handle.db,
  );
  return rows;
}

/** The token of the newest mail of this kind to this address, read from the outbox (log transport). */
export async function latestToken(handle: DatabaseHandle, address: string, kind: string): Promise<string> {
  const rows = (await outboxFor(handle, address)).filter((row) => row.kind === kind);
  return tokenFromText(rows.at(-1)?.text ?? undefined);
}
