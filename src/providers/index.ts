import type { ProvidersConfig } from './config.js';
import { IdTokenVerifier } from './id-token.js';
import { observedVerifier, type VerificationObserver } from './observed-verifier.js';
import { UserinfoVerifier } from './userinfo.js';
import type { ProviderVerifier } from './verifier.js';

/** One verifier per configured provider, by name. */
export function buildVerifiers(
  config: ProvidersConfig,
  observer?: VerificationObserver,
): Map<string, ProviderVerifier> {
  const verifiers = new Map<string, ProviderVerifier>();
  for (const provider of config.configured) {
    const verifier =
      provider.kind === 'userinfo'
        ? new UserinfoVerifier(provider, config.timeoutMs)
        : new IdTokenVerifier(provider, config.timeoutMs, config.jwksCooldownMs);
    verifiers.set(provider.name, observer ? observedVerifier(verifier, observer) : verifier);
  }
  return verifiers;
}
