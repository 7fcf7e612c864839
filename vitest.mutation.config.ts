import { defineConfig } from 'vitest/config';

/**
 * The tests of the mutation run (stryker.config.mjs, `npm run mutate`), not of `npm test`: the unit tests
 * and the integration files that exercise the rules under mutation. Only in-process tests: a mutant lives
 * in the test's memory, so a process started from dist/ or a browser page would never see it. PGlite only
 * (DATABASE_URL and REDIS_URL are blanked): the rules are the same on either backend, and the run
 * repeats these files for every mutant.
 */
export const mutationIntegrationFiles = [
  // sign-in: email and provider logins, the per-account limit, second factors, passkeys, sessions
  'login-email',
  'login-account-limit',
  'login-password-race',
  'session-gate',
  'second-factor-login',
  'second-factor-guess-bound',
  'second-factor-races',
  'passkeys-sign-in',
  'providers',
  'tokens',
  'api-tokens',
  'disabled-users',
  // re-authentication: proofs, windows, the guess limit
  'reauthentication',
  'reauth-window',
  'passkeys-reauth',
  'second-factor-settings',
  'user-update',
  'provider-links',
  // the per-address mail cap
  'mail-cap',
  // the webhook target guard
  'webhooks-actions',
  'webhook-sender',
].map((name) => `test/integration/${name}.test.ts`);

/**
 * MUTATION_TESTS (comma-separated paths) narrows the set to the tests of one stage (test/mutation/stages.sh):
 * a mutant of what a module computes when loaded runs every test of the set.
 */
const chosen = process.env.MUTATION_TESTS?.split(',').filter((file) => file !== '');

export default defineConfig({
  test: {
    include: chosen?.length ? chosen : ['test/unit/**/*.test.ts', ...mutationIntegrationFiles],
    globalSetup: ['test/helpers/mutation-setup.ts'],
    env: { DATABASE_URL: '', REDIS_URL: '' },
    // Stryker's runner runs one thread per Stryker worker (stryker.config.mjs: concurrency). Unlike
    // `npm test`, every file loads the modules afresh: a mutant of what a module computes when it is loaded
    // (a list of address ranges, a regular expression) is switched on before the file imports it, and a
    // module graph shared between files would keep the value computed under no mutant.
    isolate: true,
    restoreMocks: true,
    unstubEnvs: true,
    unstubGlobals: true,
    expect: { poll: { timeout: 10_000 } },
    testTimeout: 30_000,
    hookTimeout: 120_000,
  },
});
