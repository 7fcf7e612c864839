import { Writable } from 'node:stream';

/** A stream a logger can write to, keeping each line, for tests that read what was logged. */
export function logSink(): { stream: Writable; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { stream, lines };
}
