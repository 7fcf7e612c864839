import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/process.js';

/**
 * docs/configuration.md is the operator's list of every environment variable. It stays honest only if the
 * list is held to the code: every variable the configuration reads must have a row, and every row must name
 * a variable the configuration reads. A provider's variables are read under a name built at run time
 * (`${prefix}CLIENT_ID` with prefix `PROVIDER_${name.toUpperCase()}_`), so both sides write them as patterns:
 * `PROVIDER_<NAME>_CLIENT_ID`.
 */

/** The configuration's sources: src/config.ts (or src/config/ alone), every file under src/config/, providers. */
function configSources(): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (entry.name.endsWith('.ts')) files.push(file);
    }
  };
  walk(path.join(ROOT, 'src/config'));
  for (const file of ['src/config.ts', 'src/providers/config.ts']) {
    if (existsSync(path.join(ROOT, file))) files.push(path.join(ROOT, file));
  }
  return files;
}

const withoutComments = (source: string) =>
  source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');

/**
 * The names a source reads. Every reader takes the environment first and the variable's name second
 * (`integer(env, 'PORT', …)`, `duration(env, 'SMTP_TIMEOUT', …)`, `url(env, \`${prefix}JWKS_URL\`)`), or is
 * the providers' reader (`env.raw('REGISTER_PROVIDERS')`, `env.integer('PROVIDER_TIMEOUT_MS', …)`). A template
 * resolves its `${constant}` from the file's `const constant = \`…\``, whose own `${…}` stand for `<NAME>`.
 */
function variablesRead(source: string): Set<string> {
  const code = withoutComments(source);
  const templates = new Map<string, string>();
  for (const [, name, value] of code.matchAll(/const\s+(\w+)\s*=\s*`([^`]*)`/g)) {
    templates.set(name as string, (value as string).replace(/\$\{[^}]*\}/g, '<NAME>'));
  }
  const names = new Set<string>();
  const calls = [
    /\(\s*env\s*,\s*(['`])([^'`]+)\1/g, // reader(env, 'NAME', …)
    /\benv\.(?:raw|integer)\(\s*(['`])([^'`]+)\1/g, // env.raw('NAME'), env.integer('NAME', …)
  ];
  for (const call of calls) {
    for (const [, , literal] of code.matchAll(call)) {
      const name = (literal as string).replace(/\$\{(\w+)\}/g, (whole, constant: string) => {
        const value = templates.get(constant);
        if (value === undefined) throw new Error(`cannot resolve ${whole} in the variable name ${literal}`);
        return value;
      });
      names.add(name);
    }
  }
  return names;
}

/** The names the page lists: the backticked names in the first column of its tables. */
function variablesListed(page: string): Set<string> {
  const names = new Set<string>();
  for (const line of page.split('\n')) {
    const cells = line.split('|');
    if (!line.startsWith('|') || cells.length < 3) continue;
    for (const [, name] of (cells[1] ?? '').matchAll(/`([A-Z][A-Z0-9_<>]*)`/g)) names.add(name as string);
  }
  return names;
}

const read = () => {
  const names = new Set<string>();
  for (const file of configSources()) {
    for (const name of variablesRead(readFileSync(file, 'utf8'))) names.add(name);
  }
  return names;
};
const page = () => readFileSync(path.join(ROOT, 'docs/configuration.md'), 'utf8');

describe('docs/configuration.md lists exactly the variables the configuration reads', () => {
  it('finds the reads of every kind (a parser that finds nothing would pass everything)', () => {
    const names = read();
    for (const name of [
      'PORT',
      'DATABASE_URL',
      'SMTP_TIMEOUT',
      'RATE_LIMIT_LOGIN_IP',
      'REGISTER_PROVIDERS',
    ]) {
      expect(names).toContain(name);
    }
    expect(names).toContain('PROVIDER_<NAME>_CLIENT_ID');
    expect(names).toContain('PROVIDER_TIMEOUT_MS');
    expect(names.size).toBeGreaterThan(40);
  });

  it('has a row for every variable the configuration reads', () => {
    const listed = variablesListed(page());
    expect([...read()].filter((name) => !listed.has(name)).sort()).toEqual([]);
  });

  it('lists no variable the configuration does not read', () => {
    const names = read();
    expect([...variablesListed(page())].filter((name) => !names.has(name)).sort()).toEqual([]);
  });

  it('reads a pattern from a template and a name split over lines', () => {
    const dollar = '$';
    const source = [
      `const prefix = \`PROVIDER_${dollar}{name.toUpperCase()}_\`;`,
      `url(env, \`${dollar}{prefix}JWKS_URL\`);`,
      "integer(\n    env,\n    'HEADERS_TIMEOUT_MS',\n    1,\n  );",
      "// raw(env, 'IN_A_COMMENT')",
    ].join('\n');
    expect([...variablesRead(source)].sort()).toEqual(['HEADERS_TIMEOUT_MS', 'PROVIDER_<NAME>_JWKS_URL']);
  });
});
