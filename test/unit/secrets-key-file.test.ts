import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { secretsKeyNotice, withSecretsKey } from '../../src/db/secrets-key-file.js';
import { TEST_SECRETS_KEY } from '../helpers/config.js';

describe('SECRETS_KEY kept in DATA_DIR', () => {
  let dataDir: string;
  beforeEach(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'accounts-key-'));
  });
  afterEach(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('is made once, owner-only, and read by every later start', async () => {
    const file = path.join(dataDir, 'secrets.key');
    const first = await withSecretsKey(loadConfig({ DATA_DIR: dataDir }));
    expect(first.generated).toBe(file);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const text = await readFile(file, 'utf8');
    expect(text).toMatch(/^[0-9a-f]{64}\n$/);
    expect(first.config.secondFactor.secretsKey).toEqual(Buffer.from(text.trim(), 'hex'));
    const again = await withSecretsKey(loadConfig({ DATA_DIR: dataDir }));
    expect(again.generated).toBeUndefined();
    expect(again.config.secondFactor.secretsKey).toEqual(first.config.secondFactor.secretsKey);
    expect(secretsKeyNotice(file)).toBe(
      `Generated SECRETS_KEY in ${file}: back it up with the data, and keep it apart from database backups ` +
        '(the two together open the sealed secrets)',
    );
  });

  it('gives two processes starting at once the same key, made by one of them', async () => {
    const config = loadConfig({ DATA_DIR: dataDir });
    const both = await Promise.all([withSecretsKey(config), withSecretsKey(config)]);
    expect(both.filter((keyed) => keyed.generated !== undefined)).toHaveLength(1);
    expect(both[0]?.config.secondFactor.secretsKey).toEqual(both[1]?.config.secondFactor.secretsKey);
  });

  it('leaves an explicit SECRETS_KEY, and PostgreSQL, alone', async () => {
    const explicit = loadConfig({ DATA_DIR: dataDir, SECRETS_KEY: TEST_SECRETS_KEY });
    expect(await withSecretsKey(explicit)).toEqual({ config: explicit, generated: undefined });
    const postgres = loadConfig({ DATA_DIR: dataDir, DATABASE_URL: 'postgres://db/accounts' });
    expect(await withSecretsKey(postgres)).toEqual({ config: postgres, generated: undefined });
    await expect(stat(path.join(dataDir, 'secrets.key'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('refuses a damaged key file without echoing it', async () => {
    const file = path.join(dataDir, 'secrets.key');
    await writeFile(file, 'abc123\n');
    await expect(withSecretsKey(loadConfig({ DATA_DIR: dataDir }))).rejects.toThrow(
      `Invalid configuration: SECRETS_KEY is unset and ${file} does not hold 64 hexadecimal characters: ` +
        'restore it from a backup',
    );
  });
});
