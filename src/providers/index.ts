import type { ProvidersConfig } from './config.js';
import { IdTokenVerifier } from './id-token.js';
import { UserinfoVerifier } from './userinfo.js';
import type { ProviderVerifier } from './verifier.js';

/** One verifier per configured provider, by name. */
export function buildVerifiers(config: ProvidersConfig): Map<string, ProviderVerifier> {
  const verifiers = new Map<string, ProviderVerifier>();
  for (const provider of config.configured) {
    verifiers.set(
      provider.name,
      provider.kind === 'userinfo'
        ? new UserinfoVerifier(provider, config.timeoutMs)
        : new IdTokenVerifier(provider, config.timeoutMs, config.jwksCooldownMs),
    );
  }
  return verifiers;
}
