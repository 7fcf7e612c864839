import { readdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository (or image) root: this file is src/web/assets.ts, or dist/web/assets.js once compiled. */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface Asset {
  body: Buffer;
  type: string;
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

/** The stylesheet's parts (web/static/styles/, in name order), served as the one file /assets/styles.css. */
const STYLESHEET_PARTS = 'styles';

async function readDirectory(dir: string, prefix: string, into: Map<string, Asset>): Promise<void> {
  for (const name of await readdir(dir, { recursive: true })) {
    const type = TYPES[path.extname(name)];
    if (!type || name.startsWith(`${STYLESHEET_PARTS}${path.sep}`)) continue;
    const urlPath = `${prefix}/${name.split(path.sep).join('/')}`;
    into.set(urlPath, { body: await readFile(path.join(dir, name)), type });
  }
}

/**
 * One stylesheet from its parts, so a page makes one request for its look while no part grows past a
 * readable size. Each part ends with a newline, so a rule never runs into the next file's first one.
 */
async function readStylesheet(dir: string): Promise<Asset> {
  const names = (await readdir(dir)).filter((name) => name.endsWith('.css')).sort();
  const parts = await Promise.all(names.map((name) => readFile(path.join(dir, name), 'utf8')));
  return {
    body: Buffer.from(parts.map((part) => `${part.trimEnd()}\n`).join('\n')),
    type: TYPES['.css'] ?? '',
  };
}

/**
 * Every file the pages may load, by URL path, read once at start: the browser modules compiled by
 * `npm run build` (web/tsconfig.json → dist/public/assets), the stylesheet (one file from its parts), the WebAuthn, PortOne and phone-number browser libraries and Swagger UI's
 * bundle from their npm packages. A fixed map means no request path ever reaches the file system. `missing` names what was not built.
 */
export async function loadWebAssets(): Promise<{ assets: Map<string, Asset>; missing: string[] }> {
  const assets = new Map<string, Asset>();
  const missing: string[] = [];
  const compiled = path.join(ROOT, 'dist/public/assets');
  await readDirectory(compiled, '/assets', assets).catch(() => missing.push(compiled));
  await readDirectory(path.join(ROOT, 'web/static'), '/assets', assets).catch(() =>
    missing.push(path.join(ROOT, 'web/static')),
  );
  const parts = path.join(ROOT, 'web/static', STYLESHEET_PARTS);
  await readStylesheet(parts).then(
    (stylesheet) => assets.set('/assets/styles.css', stylesheet),
    () => missing.push(parts),
  );
  // @simplewebauthn/browser's ESM build (relative imports only), served as is under /assets/vendor/: the page
  // modules are compiled by tsc without a bundler, and an import map would be an inline script the CSP forbids,
  // so they import it by path (web/src/vendor/simplewebauthn/index.d.ts gives tsc its types).
  const webauthn = path.join(
    path.dirname(createRequire(import.meta.url).resolve('@simplewebauthn/browser')),
    '../esm',
  );
  await readDirectory(webauthn, '/assets/vendor/simplewebauthn', assets).catch(() => missing.push(webauthn));
  // @portone/browser-sdk's ESM build (one file, no imports), served the same way for the identity card. It is
  // PortOne's loader: the verification window itself is PortOne's script, which it fetches when called.
  const portone = path.join(
    path.dirname(createRequire(import.meta.url).resolve('@portone/browser-sdk/v2')),
    'v2.js',
  );
  await readFile(portone).then(
    (body) => assets.set('/assets/vendor/portone/v2.js', { body, type: TYPES['.js'] ?? '' }),
    () => missing.push(portone),
  );
  // libphonenumber-js's ES modules (es6/: relative imports only) and its smallest metadata, served the same
  // way: the mobile number fields format the number as it is typed (web/src/lib/phone-field.ts).
  const phone = path.dirname(createRequire(import.meta.url).resolve('libphonenumber-js'));
  await readDirectory(path.join(phone, 'es6'), '/assets/vendor/libphonenumber/es6', assets).catch(() =>
    missing.push(path.join(phone, 'es6')),
  );
  await readFile(path.join(phone, 'metadata.min.json.js')).then(
    (body) =>
      assets.set('/assets/vendor/libphonenumber/metadata.min.json.js', { body, type: TYPES['.js'] ?? '' }),
    () => missing.push(path.join(phone, 'metadata.min.json.js')),
  );
  const swagger = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  for (const name of ['swagger-ui.css', 'swagger-ui-bundle.js']) {
    const type = TYPES[path.extname(name)] ?? 'application/octet-stream';
    const body = await readFile(path.join(swagger, name)).catch(() => undefined);
    if (body) assets.set(`/docs/assets/${name}`, { body, type });
    else missing.push(path.join(swagger, name));
  }
  return { assets, missing };
}
