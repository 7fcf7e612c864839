import { readdir, readFile, readlink } from 'node:fs/promises';
import { request } from 'node:http';
import { connect } from 'node:net';
import type { Readable } from 'node:stream';

/** What a raw connection saw: everything the server wrote, and whether the server closed it. */
export interface RawExchange {
  response: string;
  /** True when the server closed the connection; false when the client gave up waiting. */
  closedByServer: boolean;
}

export interface RawOptions {
  /** Bytes written one at a time, this many ms apart (a slowloris client); the rest is never sent. */
  trickleMs?: number;
  /** The client gives up (and reports the connection still open) after this long. */
  giveUpMs?: number;
}

/**
 * Opens a TCP connection, writes `payload` (at once, or one byte at a time) and never sends the rest: the
 * exchange ends when the server closes the connection, or when the client gives up.
 */
export function rawExchange(url: string, payload: string, options: RawOptions = {}): Promise<RawExchange> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    let response = '';
    let trickle: NodeJS.Timeout | undefined;
    const finish = (closedByServer: boolean) => {
      clearInterval(trickle);
      clearTimeout(giveUp);
      socket.destroy();
      resolve({ response, closedByServer });
    };
    const giveUp = setTimeout(() => finish(false), options.giveUpMs ?? 15_000);
    socket.on('data', (chunk) => {
      response += chunk;
    });
    socket.on('error', () => {});
    socket.on('close', () => finish(true));
    if (options.trickleMs === undefined) {
      socket.write(payload);
      return;
    }
    let sent = 0;
    trickle = setInterval(() => {
      if (sent < payload.length && !socket.destroyed) socket.write(payload.charAt(sent++));
    }, options.trickleMs);
  });
}

/** The status code and JSON body of a raw HTTP/1.1 response. */
export function parseRawResponse(response: string): { status: number; headers: string; body: unknown } {
  const [head = '', body = ''] = response.split('\r\n\r\n', 2);
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
  return { status, headers: head.toLowerCase(), body: body === '' ? undefined : JSON.parse(body) };
}

/** How many file descriptors the process holds (Linux). */
/**
 * The sockets a process holds open. Sockets only: the embedded database opens its files as queries first
 * read them, so a count of every descriptor grows with the periodic jobs whatever the clients do.
 */
export async function openSocketCount(pid: number): Promise<number> {
  const fds = await readdir(`/proc/${pid}/fd`);
  const targets = await Promise.all(fds.map((fd) => readlink(`/proc/${pid}/fd/${fd}`).catch(() => '')));
  return targets.filter((target) => target.startsWith('socket:')).length;
}

/** The process's peak resident memory so far, in bytes (Linux `VmHWM`). */
export async function peakRss(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kib = Number(/^VmHWM:\s+(\d+) kB$/m.exec(status)?.[1]);
  if (!Number.isFinite(kib)) throw new Error('no VmHWM');
  return kib * 1024;
}

export interface StreamedUpload {
  status: number;
  body: string;
  /** Bytes the client had handed to the socket when the answer came. */
  bytesSent: number;
}

/**
 * POSTs a body produced on the fly (chunked: no Content-Length) and stops sending as soon as an answer
 * arrives; the server may close the connection under it.
 */
export function streamUpload(url: string, contentType: string, body: Readable): Promise<StreamedUpload> {
  return new Promise((resolve, reject) => {
    let bytesSent = 0;
    const req = request(url, { method: 'POST', headers: { 'content-type': contentType } });
    body.on('data', (chunk: Buffer) => {
      bytesSent += chunk.length;
    });
    req.on('response', (res) => {
      const sent = bytesSent;
      body.unpipe(req);
      body.destroy();
      let text = '';
      res.on('data', (chunk) => {
        text += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, bytesSent: sent }));
      res.on('error', reject);
    });
    req.on('error', (error) => reject(error));
    body.pipe(req);
  });
}
