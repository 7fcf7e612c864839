/**
 * Which way imports point in src/, checked in CI (`npm run deps`); `npm run deps:layers` prints the layers.
 *
 * The layers, from the top. A file imports its own layer and the layers below it, never one above: each
 * layer's rule names what it may not import. Loops are refused between files and between folders, so a
 * layer's folders cannot lean on each other either.
 */

/** Top to bottom: `path` matches the layer's files (paths as `src/http/endpoint.ts`). */
const layers = [
  { name: 'entry', path: '^src/(main\\.ts$|cli/)', what: 'main.ts and cli/: the commands' },
  { name: 'server', path: '^src/server\\.ts$', what: 'server.ts: listens and closes' },
  {
    name: 'app',
    path: '^src/(app\\.ts$|app/)',
    what: 'app.ts and app/: the Fastify instance, put together from its plugins',
  },
  {
    name: 'endpoints',
    path: '^src/endpoints\\.ts$',
    what: 'endpoints.ts: every endpoint built from the services, in the API document’s order',
  },
  { name: 'services', path: '^src/(services\\.ts$|services/)', what: 'services.ts: the composition root' },
  { name: 'web', path: '^src/web/', what: 'web/: the pages; sets and clears the session cookie' },
  { name: 'account', path: '^src/account/', what: 'account/: use cases spanning entities, their routes' },
  { name: 'modules', path: '^src/modules/', what: 'modules/<entity>/: routes, service, repo, rules' },
  {
    name: 'adapters',
    path: '^src/(mail|push|storage|metrics|dev)/',
    what: 'mail/ push/ storage/ metrics/ dev/: infrastructure adapters (some serve a route through http/)',
  },
  { name: 'http', path: '^src/http/', what: 'http/: envelope, errors, parameters, the token guard' },
  { name: 'limits', path: '^src/limits/', what: 'limits/: rate limits' },
  {
    name: 'foundations',
    path: '^src/(db|validation|config|providers)/|^src/config\\.ts$',
    what: 'db/ validation/ config/ config.ts providers/: the database, the rule engine, settings, identity providers',
  },
  {
    name: 'basics',
    path: '^src/(lib/|types/|errors\\.ts$|version\\.ts$|startup-errors\\.ts$)',
    what: 'lib/ errors.ts version.ts startup-errors.ts: pure helpers and the error types',
  },
];

/** One rule per layer below the top: nothing in it imports a layer above it. */
const downwardOnly = layers.slice(1).map((layer, index) => {
  const above = layers.slice(0, index + 1);
  return {
    name: `${layer.name}-imports-only-below`,
    comment: `${layer.what}: imports ${layers
      .slice(index + 2)
      .map((lower) => lower.name)
      .join(', ')}; never ${above.map((upper) => upper.name).join(', ')}.`,
    severity: 'error',
    from: { path: layer.path },
    to: { path: above.map((upper) => `(${upper.path})`).join('|') },
  };
});

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...downwardOnly,
    {
      name: 'no-circular',
      comment: 'No file reaches itself through its imports.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-folder-loop',
      comment:
        'No folder reaches itself through its files’ imports (src/ itself aside: its top files are the layers’ ends).',
      severity: 'error',
      scope: 'folder',
      from: { path: '^src/.+' },
      to: { path: '^src/.+', circular: true },
    },
    {
      name: 'no-other-module-service-or-repo',
      comment:
        'An entity module never imports another module’s service or repo: it declares the small interface it ' +
        'needs and receives it in its constructor (wired in services.ts).',
      severity: 'error',
      from: { path: '^src/modules/([^/]+)/' },
      to: {
        path: '^src/modules/[^/]+/(service|repo|[^/]+-service|[^/]+-repo)\\.ts$',
        pathNot: '^src/modules/$1/',
      },
    },
    {
      name: 'only-composition-imports-routes',
      comment: 'Routes are the HTTP ends: only endpoints.ts puts them together.',
      severity: 'error',
      from: { pathNot: '^src/endpoints\\.ts$' },
      to: { path: '/(routes|[^/]+-routes)\\.ts$' },
    },
    {
      name: 'src-never-imports-tests-or-bench',
      comment: 'The service ships without test/ and bench/.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(test|bench)/' },
    },
  ],
  options: {
    doNotFollow: { path: ['node_modules', '^test/', '^bench/'] },
    // Type-only imports count: a loop through types is a loop in the design all the same.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.mjs', '.cjs', '.json'] },
  },
};

// `node .dependency-cruiser.cjs` (npm run deps:layers): the layers, top to bottom.
if (require.main === module) {
  for (const [index, layer] of layers.entries()) console.log(`${index + 1}. ${layer.what}`);
}
