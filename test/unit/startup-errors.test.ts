import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  checkDataDir,
  databaseStartupError,
  dataDirWriteError,
  StartupError,
  startupErrorLine,
} from '../../src/startup-errors.js';

const errno = (code: string, extra: Record<string, unknown> = {}) =>
  Object.assign(new Error(`${code} message`), { code, ...extra });

describe('DATA_DIR checks', () => {
  it('makes a missing directory and leaves no probe file behind', async () => {
    const parent = await mkdtemp(path.join(tmpdir(), 'accounts-datadir-'));
    try {
      const dir = path.join(parent, 'nested', 'data');
      await checkDataDir(dir);
      expect(await readdir(dir)).toEqual([]);
    } finally {
      await rm(parent, { recursive: true, force: true });
    }
  });

  it('refuses kernel file systems by prefix, not by a look-alike name', async () => {
    await expect(checkDataDir('/proc')).rejects.toThrow('is under /proc');
    await expect(checkDataDir('/sys/../proc/self')).rejects.toThrow('(/proc/self) is under /proc');
    const parent = await mkdtemp(path.join(tmpdir(), 'accounts-datadir-'));
    try {
      await expect(checkDataDir(path.join(parent, 'proc'))).resolves.toBeUndefined();
    } finally {
      await rm(parent, { recursive: true, force: true });
    }
  });

  it.each([
    ['EROFS', 'is on a read-only file system (EROFS)'],
    ['EACCES', 'is not writable by this user (EACCES)'],
    ['ENOSPC', 'is on a full disk (ENOSPC)'],
  ])('turns %s of the probe write into one line', (code, detail) => {
    const error = dataDirWriteError('/srv/data', errno(code));
    expect(error).toBeInstanceOf(StartupError);
    expect(error?.message).toBe(`Cannot start: DATA_DIR (/srv/data) ${detail}`);
    expect(startupErrorLine(error)).toBe(error?.message);
  });

  it('leaves other errors alone', () => {
    expect(dataDirWriteError('/srv/data', errno('EIO'))).toBeUndefined();
  });
});

describe('database start-up errors', () => {
  it('names DATABASE_URL for a refused connection, with the address tried', () => {
    expect(
      startupErrorLine(errno('ECONNREFUSED', { syscall: 'connect', address: '10.0.0.5', port: 5432 })),
    ).toBe(
      'Cannot start: DATABASE_URL is unreachable: ECONNREFUSED at 10.0.0.5:5432 (is PostgreSQL running there?)',
    );
    const aggregate = Object.assign(
      new AggregateError([errno('ECONNREFUSED', { syscall: 'connect', address: '::1', port: 5432 })]),
      { code: 'ECONNREFUSED' },
    );
    expect(startupErrorLine(aggregate)).toBe(
      'Cannot start: DATABASE_URL is unreachable: ECONNREFUSED at [::1]:5432 (is PostgreSQL running there?)',
    );
  });

  it('names DATABASE_URL for a role or database the server refuses', () => {
    expect(startupErrorLine(errno('28000'))).toBe(
      'Cannot start: DATABASE_URL names a role the server does not accept: 28000 message (28000)',
    );
    expect(startupErrorLine(errno('3D000'))).toMatch(/names a database that does not exist/);
  });

  it('counts a failed name lookup only when the caller knows it came from the database', () => {
    const lookup = errno('ENOTFOUND', { syscall: 'getaddrinfo', hostname: 'db.internal' });
    // Listening on a HOST that does not resolve fails the same way: main's own line handles that.
    expect(startupErrorLine(lookup)).toBeUndefined();
    expect(databaseStartupError(lookup, true)?.message).toBe(
      'Cannot start: DATABASE_URL names a host that cannot be resolved: db.internal (ENOTFOUND)',
    );
  });

  it('leaves listen errors and faults alone', () => {
    expect(startupErrorLine(errno('EADDRINUSE', { syscall: 'listen' }))).toBeUndefined();
    expect(startupErrorLine(new TypeError('bug'))).toBeUndefined();
    expect(startupErrorLine(undefined)).toBeUndefined();
  });
});
