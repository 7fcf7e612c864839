// @ts-check
/**
 * The mutation run over the rules that guard accounts (CONTRIBUTING.md, "Mutation testing"): `npm run mutate`.
 * Not part of `npm test` or CI: it runs the covering tests once per mutant.
 * @type {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
export default {
  mutate: [
    'src/account/sign-in/**/*.ts',
    'src/account/reauth/**/*.ts',
    'src/mail/address-cap.ts',
    'src/modules/webhooks/address-guard.ts',
    // The parts of src/lib that guard an account: secrets, tokens, passwords and codes, ages, cursors.
    'src/lib/age.ts',
    'src/lib/derived-key.ts',
    'src/lib/legacy-bcrypt.ts',
    'src/lib/passwords.ts',
    'src/lib/recovery-codes.ts',
    'src/lib/secret-box.ts',
    'src/lib/signed-cursor.ts',
    'src/lib/time.ts',
    'src/lib/tokens.ts',
    'src/lib/totp.ts',
    'src/lib/username-skeleton.ts',
  ],
  testRunner: 'vitest',
  // Not vitest's "related" files: it found none for a mutant of what a module computes when loaded, which
  // then survived having run no test. Such a mutant runs every test of vitest.mutation.config.ts instead.
  vitest: { configFile: 'vitest.mutation.config.ts', related: false },
  // Each mutant runs only the tests that reached it in the first (dry) run.
  coverageAnalysis: 'perTest',
  // Two Stryker workers, each one vitest thread: the machine has two cores.
  concurrency: 2,
  timeoutMS: 20_000,
  // The first run of every covering test, with coverage, before any mutant.
  dryRunTimeoutMinutes: 30,
  // What the sandbox copy leaves out: local data and outputs. dist/ is copied: it holds the embedded
  // database's template every test database starts from.
  ignorePatterns: [
    'data',
    'coverage',
    'test-results',
    'dist-bench',
    '.dist-staging-*',
    '.dist-build.lock',
    'reports',
  ],
  plugins: ['@stryker-mutator/vitest-runner', './test/mutation/ignorers.mjs'],
  ignorers: ['documentation'],
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};
