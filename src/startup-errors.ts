import { mkdir, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * A start-up failure the operator fixes in one setting: printed as one line naming the variable, never as a
 * stack trace.
 */
export class StartupError extends Error {
  constructor(
    readonly variable: string,
    detail: string,
  ) {
    super(`Cannot start: ${variable} ${detail}`);
    this.name = 'StartupError';
  }
}

/** Kernel file systems: PGlite spins at full CPU for ever on /proc instead of failing. */
const PSEUDO_FILE_SYSTEMS = ['/proc', '/sys', '/dev'];

const WRITE_ERRORS: Record<string, string> = {
  EACCES: 'is not writable by this user (EACCES)',
  EPERM: 'is not writable by this user (EPERM)',
  EROFS: 'is on a read-only file system (EROFS)',
  ENOTDIR: 'has a regular file where a directory should be (ENOTDIR)',
  ENOSPC: 'is on a full disk (ENOSPC)',
  EEXIST: 'is a regular file, not a directory (EEXIST)',
};

/** The one line for a failed write under DATA_DIR, or undefined when the error is not about the directory. */
export function dataDirWriteError(dir: string, error: unknown): StartupError | undefined {
  const detail = WRITE_ERRORS[(error as NodeJS.ErrnoException | undefined)?.code ?? ''];
  return detail === undefined ? undefined : new StartupError('DATA_DIR', `(${dir}) ${detail}`);
}

/**
 * Checks DATA_DIR before anything opens files in it: not a kernel file system, a directory (made when
 * missing), and writable (proved by writing and removing a probe file, which also catches read-only mounts
 * that permission bits do not show).
 */
export async function checkDataDir(dir: string): Promise<void> {
  const resolved = path.resolve(dir);
  const pseudo = PSEUDO_FILE_SYSTEMS.find((root) => resolved === root || resolved.startsWith(`${root}/`));
  if (pseudo !== undefined) {
    throw new StartupError('DATA_DIR', `(${resolved}) is under ${pseudo}, a kernel file system, not storage`);
  }
  const existing = await stat(resolved).catch(() => undefined);
  if (existing !== undefined && !existing.isDirectory()) {
    throw new StartupError('DATA_DIR', `(${resolved}) is a regular file, not a directory`);
  }
  const probe = path.join(resolved, `.write-probe-${process.pid}`);
  try {
    await mkdir(resolved, { recursive: true });
    await writeFile(probe, '');
    await rm(probe, { force: true });
  } catch (error) {
    throw dataDirWriteError(resolved, error) ?? error;
  }
}

interface DriverError {
  code?: unknown;
  syscall?: unknown;
  address?: unknown;
  port?: unknown;
  hostname?: unknown;
  message?: unknown;
  errors?: unknown;
}

/** SQLSTATEs of a server that answered but refused the connection. */
const REFUSED_BY_SERVER: Record<string, string> = {
  '28000': 'names a role the server does not accept',
  '28P01': 'has a password the server does not accept',
  '3D000': 'names a database that does not exist',
  '57P03': 'names a server that is not accepting connections yet',
  '53300': 'names a server that has no connection slots left',
};

const UNREACHABLE = new Set(['ECONNREFUSED', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET']);
const LOOKUP_FAILED = new Set(['ENOTFOUND', 'EAI_AGAIN']);

function where(error: DriverError): string {
  // Node 20 tries every address of a host name and throws an AggregateError holding each attempt.
  const first = Array.isArray(error.errors) ? (error.errors[0] as DriverError | undefined) : error;
  const address = first?.address ?? error.address;
  const port = first?.port ?? error.port;
  return typeof address === 'string' ? ` at ${address.includes(':') ? `[${address}]` : address}:${port}` : '';
}

/**
 * The database errors of start-up as one line naming DATABASE_URL (its value is never echoed: it may hold a
 * password); undefined for anything else. A failed name lookup is counted only when `lookups` is true: the
 * caller knows the error came from the database, since listening on a bad HOST fails the same way.
 */
export function databaseStartupError(error: unknown, lookups = false): StartupError | undefined {
  if (error instanceof StartupError) return error;
  const driver = (error ?? {}) as DriverError;
  const code = typeof driver.code === 'string' ? driver.code : '';
  const message = typeof driver.message === 'string' ? driver.message : '';
  const refused = REFUSED_BY_SERVER[code];
  if (refused !== undefined) return new StartupError('DATABASE_URL', `${refused}: ${message} (${code})`);
  if (UNREACHABLE.has(code) && (driver.syscall === 'connect' || Array.isArray(driver.errors))) {
    return new StartupError(
      'DATABASE_URL',
      `is unreachable: ${code}${where(driver)} (is PostgreSQL running there?)`,
    );
  }
  if (/timeout expired|connection timeout/i.test(message)) {
    return new StartupError('DATABASE_URL', 'is unreachable: no answer within the connection timeout');
  }
  if (lookups && LOOKUP_FAILED.has(code)) {
    return new StartupError(
      'DATABASE_URL',
      `names a host that cannot be resolved: ${String(driver.hostname)} (${code})`,
    );
  }
  return undefined;
}

/** The one line to print for a start-up failure, or undefined when the full error should be printed. */
export function startupErrorLine(error: unknown): string | undefined {
  return databaseStartupError(error)?.message;
}
