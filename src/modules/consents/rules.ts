import { parameterBag } from '../../http/params.js';
import { string } from '../../validation/field-kinds.js';
import { rules } from '../../validation/rule-list.js';
import { SIGN_UP_CONSENT_PREFIX } from './service.js';

/**
 * `user/consents/update`: `<key>=on|off` for each document to change (read by the service, which knows the
 * documents: a rule list is fixed, the documents are not), and the channel it came through.
 */
export const consentUpdateRules = rules({
  channel: string()
    .in(['update', 'web'])
    .describe('Where the change was made: `update` (the app, the default) or `web` (the web pages).'),
});

function hasConsentField(source: unknown): boolean {
  if (source === null || typeof source !== 'object' || Buffer.isBuffer(source)) return false;
  return Object.keys(source).some((name) => name.startsWith(SIGN_UP_CONSENT_PREFIX));
}

/**
 * Register's `consent_<key>` parameters, normalised like every parameter (trimmed, empty = absent). Outside
 * the rule list, because which keys exist is data. A request without any (every old client) costs a key scan.
 */
export function signUpConsentFields(query: unknown, body: unknown): Record<string, unknown> {
  if (!hasConsentField(body) && !hasConsentField(query)) return {};
  return Object.fromEntries(
    Object.entries(parameterBag(query, body)).filter(([name]) => name.startsWith(SIGN_UP_CONSENT_PREFIX)),
  );
}
