import { expect } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

/** The error loadConfig throws for this environment (fails the test when it throws nothing, or another error). */
export function configError(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

/** The SECRETS_KEY of every test app (testConfig): a fixed key, so a failing test can be replayed. */
export const TEST_SECRETS_KEY = '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f';
