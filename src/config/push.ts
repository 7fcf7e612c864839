import { createPrivateKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ConfigError, type Env, httpUrl, integer, raw } from './env.js';

/** The parts of a Google service-account key file that FCM HTTP v1 needs. */
export interface FcmServiceAccount {
  clientEmail: string;
  /** A KeyObject, not the PEM text: it prints as `KeyObject {}`, so a logged config never shows the key. */
  privateKey: KeyObject;
  /** The key file's `token_uri`, when it has one. */
  tokenUri: string | undefined;
}

/**
 * How test pushes are delivered: `log` records them in notification_outbox (zero setup), `fcm`
 * sends them through Firebase Cloud Messaging HTTP v1 with a service account.
 */
export type PushConfig =
  | { transport: 'log' }
  | {
      transport: 'fcm';
      projectId: string;
      serviceAccount: FcmServiceAccount;
      /** Base URL of the FCM API, without a trailing slash. */
      endpoint: string;
      /** Where the signed JWT is exchanged for an access token (also the JWT's audience). */
      tokenUrl: string;
      timeoutMs: number;
    };

const TRANSPORTS = ['log', 'fcm'] as const;

/** Google's rule for project ids: it ends up in a URL path, so nothing else may pass. */
const PROJECT_ID = /^[a-z][a-z0-9-]{4,28}[a-z0-9]$/;

/**
 * Reads FCM_CREDENTIALS_FILE at start, so a missing or broken key stops the process with one line instead of
 * failing every push later. The messages name the variable and what is wrong, never the file's contents.
 */
function serviceAccount(file: string): FcmServiceAccount {
  const fail = (detail: string): never => {
    throw new ConfigError('FCM_CREDENTIALS_FILE', detail);
  };
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    fail(`cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}: ${file})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    fail(`is not a JSON service-account key file (${file})`);
  }
  const key = (json ?? {}) as Record<string, unknown>;
  const clientEmail = key.client_email;
  if (typeof clientEmail !== 'string' || !clientEmail.includes('@')) {
    fail(`has no client_email (${file})`);
  }
  if (typeof key.private_key !== 'string') fail(`has no private_key (${file})`);
  let privateKey: KeyObject | undefined;
  try {
    privateKey = createPrivateKey(key.private_key as string);
  } catch {
    fail(`has a private_key that is not a PEM private key (${file})`);
  }
  if (privateKey?.asymmetricKeyType !== 'rsa') fail(`has a private_key that is not an RSA key (${file})`);
  let tokenUri: string | undefined;
  if (key.token_uri !== undefined) {
    try {
      tokenUri = httpUrl({ token_uri: String(key.token_uri) }, 'token_uri');
    } catch {
      fail(`has a token_uri that is not an http(s) URL (${file})`);
    }
  }
  return { clientEmail: clientEmail as string, privateKey: privateKey as KeyObject, tokenUri };
}

export function parsePush(env: Env): PushConfig {
  const value = raw(env, 'PUSH_TRANSPORT')?.toLowerCase() ?? 'log';
  const transport = TRANSPORTS.find((candidate) => candidate === value);
  if (!transport) {
    throw new ConfigError('PUSH_TRANSPORT', `must be one of ${TRANSPORTS.join(', ')} (got "${value}")`);
  }
  if (transport === 'log') return { transport };
  const projectId = raw(env, 'FCM_PROJECT_ID');
  if (projectId === undefined) throw new ConfigError('FCM_PROJECT_ID', 'must be set when PUSH_TRANSPORT=fcm');
  if (!PROJECT_ID.test(projectId)) {
    throw new ConfigError('FCM_PROJECT_ID', `must be a Firebase project id (got "${projectId}")`);
  }
  const file = raw(env, 'FCM_CREDENTIALS_FILE');
  if (file === undefined) {
    throw new ConfigError(
      'FCM_CREDENTIALS_FILE',
      "must name the service account's JSON key file when PUSH_TRANSPORT=fcm",
    );
  }
  const account = serviceAccount(file);
  return {
    transport,
    projectId,
    serviceAccount: account,
    endpoint: httpUrl(env, 'FCM_ENDPOINT') ?? 'https://fcm.googleapis.com',
    tokenUrl: httpUrl(env, 'FCM_TOKEN_URL') ?? account.tokenUri ?? 'https://oauth2.googleapis.com/token',
    timeoutMs: integer(env, 'FCM_TIMEOUT_MS', 5000, 1, 120_000),
  };
}
