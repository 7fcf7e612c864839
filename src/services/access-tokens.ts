import { AccessTokens } from '../account/access-tokens/service.js';
import { SecretBox } from '../lib/secret-box.js';
import { ServiceCredentialsRepo } from '../modules/service-credentials/repo.js';
import { ServiceCredentials } from '../modules/service-credentials/service.js';
import { SigningKeysRepo } from '../modules/signing-keys/repo.js';
import { SigningKeys } from '../modules/signing-keys/service.js';
import { SessionsRepo } from '../modules/tokens/session-repo.js';
import type { FactoryArgs } from './deps.js';

/** The access tokens for the app's other services, their keys, and the services' credentials. */
export interface AccessTokenServices {
  /** The signing keys' schedule, shared by every instance through the database. */
  signingKeys: SigningKeys;
  accessTokens: AccessTokens;
  /** The credentials other services introspect tokens with. */
  serviceCredentials: ServiceCredentials;
}

/** Built on the database alone: the keys are sealed with SECRETS_KEY, and nothing works without it. */
export function buildAccessTokens({ config, deps }: FactoryArgs): AccessTokenServices {
  const db = deps.database.db;
  const { secretsKey } = config.secondFactor;
  const { alg, ttlMs, publishAheadMs } = config.accessTokens;
  const signingKeys = new SigningKeys({
    db,
    repo: new SigningKeysRepo(db),
    box: secretsKey === undefined ? undefined : SecretBox.withKey(secretsKey),
    alg,
    ttlMs,
    publishAheadMs,
  });
  const accessTokens = new AccessTokens({
    keys: signingKeys,
    sessions: new SessionsRepo(db),
    config: config.accessTokens,
  });
  return {
    signingKeys,
    accessTokens,
    serviceCredentials: new ServiceCredentials(new ServiceCredentialsRepo(db)),
  };
}
