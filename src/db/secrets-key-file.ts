import { randomBytes } from 'node:crypto';
import { link, readFile, unlink, writeFile } from 'node:fs/promises';
import { HEX_KEY } from '../config/second-factor.js';
import { type Config, ConfigError } from '../config.js';

/** The configuration with its SECRETS_KEY in place, and the file the key was made in on this start, if any. */
export interface KeyedConfig {
  config: Config;
  /** The key file made just now: its notice is for the operator (secretsKeyNotice). */
  generated: string | undefined;
}

/** The one line said when the key is made: it is the one copy of what opens the sealed secrets. */
export function secretsKeyNotice(file: string): string {
  return (
    `Generated SECRETS_KEY in ${file}: back it up with the data, and keep it apart from database ` +
    'backups (the two together open the sealed secrets)'
  );
}

async function readKey(file: string): Promise<Buffer | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ConfigError(
      'SECRETS_KEY',
      `is unset and its file ${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? error})`,
    );
  }
  const key = text.trim();
  if (!HEX_KEY.test(key)) {
    // Never echo the content: it may be most of a key.
    throw new ConfigError(
      'SECRETS_KEY',
      `is unset and ${file} does not hold 64 hexadecimal characters: restore it from a backup`,
    );
  }
  return Buffer.from(key, 'hex');
}

/**
 * Makes the key file atomically: written whole to a file of this process's (owner-only from birth), then
 * linked into place, which fails when another process made one first; that one is read instead. So the file
 * is never seen half-written, and two processes starting at once end up with the same key.
 */
async function createKey(file: string): Promise<boolean> {
  const draft = `${file}.${process.pid}-${randomBytes(6).toString('hex')}.new`;
  await writeFile(draft, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  try {
    await link(draft, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await unlink(draft).catch(() => undefined);
  }
}

/**
 * The configuration a process runs with: an unset SECRETS_KEY on the embedded database is read from its file
 * in DATA_DIR (`config.secondFactor.keyFile`), made there on the first start. Parsing the configuration stays
 * pure (config/second-factor.ts only names the file); this is called where the process opens its database,
 * after DATA_DIR has been checked and made owner-only. An explicit SECRETS_KEY wins; on PostgreSQL nothing is
 * made: every instance must be given the same key.
 */
export async function withSecretsKey(config: Config): Promise<KeyedConfig> {
  const file = config.secondFactor.keyFile;
  if (config.secondFactor.secretsKey !== undefined || file === undefined)
    return { config, generated: undefined };
  let generated: string | undefined;
  let key = await readKey(file);
  if (key === undefined) {
    if (await createKey(file)) generated = file;
    key = await readKey(file);
  }
  if (key === undefined) throw new ConfigError('SECRETS_KEY', `is unset and ${file} could not be made`);
  return { config: { ...config, secondFactor: { ...config.secondFactor, secretsKey: key } }, generated };
}
