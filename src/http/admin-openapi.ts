import { type AnyAdminEndpoint, CSRF_HEADER, STAFF_COOKIE } from './admin-endpoint.js';
import type { AnyEndpoint } from './endpoint.js';
import { openApiDocument, operation } from './openapi.js';

/** The app's operation writer, on an admin endpoint: the same parameters, bodies and responses. */
function adminOperation(endpoint: AnyAdminEndpoint): Record<string, unknown> {
  const { auth, permission, download, run: _run, ...info } = endpoint;
  const asApp: AnyEndpoint = {
    ...info,
    auth: auth === 'staff' ? 'required' : 'none',
    // No guardian gate here: staff are not users.
    beforeGuardianConsent: true,
    errors: [...(info.errors ?? []), 403],
    run: async () => undefined,
  };
  const op = operation(asApp);
  op.security = auth === 'staff' ? [{ staffSession: [] }] : [];
  if (permission !== undefined) op['x-permission'] = permission;
  if (download !== undefined) {
    const responses = op.responses as Record<string, unknown>;
    responses['200'] = {
      description: 'The file, as an attachment (Content-Disposition names it).',
      content: { [download.contentType]: { schema: { type: 'string' } } },
    };
  }
  return op;
}

/**
 * /admin/openapi.json: the admin API alone (nothing of it is in the app's /openapi.json, nothing of the app's
 * here), from the same rule lists and operation writer as the app's document.
 */
export function adminOpenApiDocument(endpoints: AnyAdminEndpoint[], serviceVersion: string) {
  const base = openApiDocument([], ['v1'], serviceVersion);
  const paths: Record<string, Record<string, unknown>> = {};
  for (const endpoint of endpoints) {
    const path = endpoint.path.replace(/:([A-Za-z_]+)/g, '{$1}');
    paths[path] ??= {};
    (paths[path] as Record<string, unknown>)[endpoint.method.toLowerCase()] = adminOperation(endpoint);
  }
  return {
    ...base,
    info: {
      title: 'accounts admin API',
      version: serviceVersion,
      description:
        "The operator console's API (docs/console.md): staff sessions only, never an app api_token. Every " +
        `response is the \`{meta, data}\` envelope. Every POST of a session sends its \`csrf_token\` in ${CSRF_HEADER}; ` +
        '`x-permission` names what the role must allow (403 otherwise).',
    },
    servers: [{ url: '/admin/v1' }],
    paths,
    components: {
      ...base.components,
      securitySchemes: { staffSession: { type: 'apiKey', in: 'cookie', name: STAFF_COOKIE } },
    },
  };
}
