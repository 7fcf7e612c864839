import { readFileSync } from 'node:fs';

/** The package version, read once; src/ and dist/ are both one level below package.json. */
export const SERVICE_VERSION: string = JSON.parse(
  readFileSync(new URL('../package.json', import.meta.url), 'utf8'),
).version;
