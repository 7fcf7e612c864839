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
