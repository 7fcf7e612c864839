/**
 * The identity providers' configuration, parsed from PROVIDER_* variables. `config.ts` calls
 * `parseProviders` with a reader over the environment, so this module never reads process.env itself.
 */

export interface UserinfoProviderConfig {
  name: string;
  kind: 'userinfo';
  userinfoUrl: string;
  /** Dot path of the user's id in the userinfo JSON. */
  userIdPath: string;
  /** When set, a token-info endpoint that must name one of `clientIds` at `clientIdPath`. */
  tokeninfoUrl: string | undefined;
  clientIdPath: string;
  /** Our app's client ids (several when iOS and Android apps have their own); empty = not checked. */
  clientIds: string[];
}

export interface IdTokenProviderConfig {
  name: string;
  kind: 'id-token';
  jwksUrl: string;
  issuer: string;
  /** Accepted `aud` values: our app's client ids. */
  audiences: string[];
}

export type ProviderConfig = UserinfoProviderConfig | IdTokenProviderConfig;

export interface ProvidersConfig {
  /** Every provider name the service knows (PROVIDERS), configured or not. */
  names: string[];
  /** Those accepted as a register `type` once configured (REGISTER_PROVIDERS). */
  registerNames: string[];
  /**
   * Providers with their URL settings, by name; the others are no register type, and their login and link
   * routes answer 503 provider_not_configured.
   */
  configured: ProviderConfig[];
  timeoutMs: number;
  /** Least time between two JWKS downloads, so tokens with made-up key ids cannot make us hammer the provider. */
  jwksCooldownMs: number;
}

export interface EnvReader {
  /** The variable's trimmed value, or undefined when unset or empty. */
  raw(name: string): string | undefined;
  integer(name: string, fallback: number, min: number, max: number): number;
  /** Throws the service's ConfigError naming the variable. */
  fail(name: string, detail: string): never;
}

const NAME_PATTERN = /^[a-z][a-z0-9]*$/;

function nameList(env: EnvReader, variable: string, fallback: string): string[] {
  const value = env.raw(variable) ?? fallback;
  const names = value
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
  const bad = names.find((name) => !NAME_PATTERN.test(name));
  if (bad !== undefined) {
    // Names become parameter names (`<name>_user_id`) and route segments: keep them plain.
    env.fail(
      variable,
      `must be a comma-separated list of lower-case names of letters and digits (got "${value}")`,
    );
  }
  return [...new Set(names)];
}

function list(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

function url(env: EnvReader, variable: string): string | undefined {
  const value = env.raw(variable);
  if (value === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    return env.fail(variable, `must be an http:// or https:// URL (got "${value}")`);
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    env.fail(variable, `must be an http:// or https:// URL (got "${value}")`);
  }
  return parsed.href;
}

function needed<T>(env: EnvReader, variable: string, value: T | undefined, why: string): T {
  if (value === undefined || (Array.isArray(value) && value.length === 0))
    env.fail(variable, `is required ${why}`);
  return value as T;
}

/**
 * The variables that configure provider `name`, by PROVIDER_<NAME>_KIND: the ones each kind requires (a
 * userinfo provider may add TOKENINFO_URL and CLIENT_ID; docs/configuration.md). Told to a client that calls
 * a provider this deployment has not configured.
 */
export function providerVariables(name: string): Record<ProviderConfig['kind'], string[]> {
  // Written out as providerConfig writes it: docs/configuration.md's test reads the names from this source.
  const prefix = `PROVIDER_${name.toUpperCase()}_`;
  return {
    userinfo: [`${prefix}USERINFO_URL`],
    'id-token': [`${prefix}JWKS_URL`, `${prefix}ISSUER`, `${prefix}AUDIENCE`],
  };
}

/** One provider's settings, or undefined when none of its URLs is set (the provider is then not configured). */
function providerConfig(env: EnvReader, name: string): ProviderConfig | undefined {
  const prefix = `PROVIDER_${name.toUpperCase()}_`;
  const userinfoUrl = url(env, `${prefix}USERINFO_URL`);
  const tokeninfoUrl = url(env, `${prefix}TOKENINFO_URL`);
  const jwksUrl = url(env, `${prefix}JWKS_URL`);
  const kindValue = env.raw(`${prefix}KIND`)?.toLowerCase();
  if (userinfoUrl === undefined && tokeninfoUrl === undefined && jwksUrl === undefined) return undefined;
  const kind = kindValue ?? (jwksUrl !== undefined ? 'id-token' : 'userinfo');
  if (kind === 'userinfo') {
    const why = `when ${prefix}KIND is userinfo`;
    const clientIds = list(env.raw(`${prefix}CLIENT_ID`));
    if (clientIds.length > 0 && tokeninfoUrl === undefined) {
      // A client id we could not check would be a silent hole: a token issued to another app would get in.
      env.fail(`${prefix}TOKENINFO_URL`, `is required when ${prefix}CLIENT_ID is set`);
    }
    return {
      name,
      kind,
      userinfoUrl: needed(env, `${prefix}USERINFO_URL`, userinfoUrl, why),
      userIdPath: env.raw(`${prefix}USER_ID_PATH`) ?? 'id',
      tokeninfoUrl,
      clientIdPath: env.raw(`${prefix}CLIENT_ID_PATH`) ?? 'app_id',
      clientIds,
    };
  }
  if (kind === 'id-token') {
    const why = `when ${prefix}KIND is id-token`;
    return {
      name,
      kind,
      jwksUrl: needed(env, `${prefix}JWKS_URL`, jwksUrl, why),
      issuer: needed(env, `${prefix}ISSUER`, env.raw(`${prefix}ISSUER`), why),
      audiences: needed(env, `${prefix}AUDIENCE`, list(env.raw(`${prefix}AUDIENCE`)), why),
    };
  }
  return env.fail(`${prefix}KIND`, `must be userinfo or id-token (got "${kindValue}")`);
}

export function parseProviders(env: EnvReader): ProvidersConfig {
  const names = nameList(env, 'PROVIDERS', 'alpha,beta,gamma');
  // `auth/login/email` and register type `email` are the password path.
  if (names.includes('email')) env.fail('PROVIDERS', 'must not name "email"');
  // Unset: the apps' register types (alpha and beta) among the known providers; `none`: provider sign-up switched off.
  const registerValue = env.raw('REGISTER_PROVIDERS');
  const registerNames =
    registerValue === undefined
      ? ['alpha', 'beta'].filter((name) => names.includes(name))
      : registerValue.toLowerCase() === 'none'
        ? []
        : nameList(env, 'REGISTER_PROVIDERS', '');
  const unknown = registerNames.find((name) => !names.includes(name));
  if (unknown !== undefined) {
    env.fail('REGISTER_PROVIDERS', `names "${unknown}", which is not in PROVIDERS (${names.join(',')})`);
  }
  const configured = names
    .map((name) => providerConfig(env, name))
    .filter((provider) => provider !== undefined);
  return {
    names,
    registerNames,
    configured,
    timeoutMs: env.integer('PROVIDER_TIMEOUT_MS', 5000, 1, 120_000),
    jwksCooldownMs: env.integer('PROVIDER_JWKS_COOLDOWN_MS', 30_000, 0, 86_400_000),
  };
}
