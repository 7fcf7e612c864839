import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { object, string } from '../../validation/field-kinds.js';
import type { ConvertingRule, JsonSchema } from '../../validation/types.js';

/** The members a response's `response` object must carry, by ceremony (all base64url strings). */
const REGISTRATION_MEMBERS = ['clientDataJSON', 'attestationObject'] as const;
const ASSERTION_MEMBERS = ['clientDataJSON', 'authenticatorData', 'signature'] as const;

const BASE64URL = /^[A-Za-z0-9_-]+$/;
const isBase64Url = (value: unknown): value is string => typeof value === 'string' && BASE64URL.test(value);

/**
 * The shape of a WebAuthn response as `PublicKeyCredential.toJSON()` (or @simplewebauthn/browser) writes it:
 * checked here so a malformed one is a 422 on the field, never an error deep in the verification. Whether it
 * proves anything is the ceremony's question.
 */
function credentialShape<T>(members: readonly string[]): ConvertingRule<Record<string, unknown>, T> {
  return {
    name: 'webauthn_response',
    failures: [{ rule: 'regex' }],
    check: async (value) => {
      const inner = value.response as Record<string, unknown> | undefined;
      const wellFormed =
        isBase64Url(value.id) &&
        isBase64Url(value.rawId) &&
        value.type === 'public-key' &&
        typeof inner === 'object' &&
        inner !== null &&
        !Array.isArray(inner) &&
        members.every((member) => isBase64Url(inner[member]));
      if (!wellFormed) return { rule: 'regex' };
      // Browsers always send it; an app's own encoder may leave it out when empty.
      const extensions = value.clientExtensionResults ?? {};
      return { converted: { ...value, clientExtensionResults: extensions } as T };
    },
  };
}

const base64url = { type: 'string', pattern: BASE64URL.source };

function responseSchema(members: readonly string[], more: Record<string, JsonSchema> = {}): JsonSchema {
  return {
    required: ['id', 'rawId', 'type', 'response'],
    properties: {
      id: base64url,
      rawId: base64url,
      type: { type: 'string', const: 'public-key' },
      response: {
        type: 'object',
        additionalProperties: true,
        required: [...members],
        properties: { ...Object.fromEntries(members.map((member) => [member, base64url])), ...more },
      },
      authenticatorAttachment: { type: 'string' },
      clientExtensionResults: { type: 'object', additionalProperties: true },
    },
  };
}

/** `response` of passkeys/add: the RegistrationResponseJSON of `navigator.credentials.create()`. */
export const registrationResponseField = object(
  responseSchema(REGISTRATION_MEMBERS, { transports: { type: 'array', items: { type: 'string' } } }),
)
  .required()
  .convert(credentialShape<RegistrationResponseJSON>(REGISTRATION_MEMBERS))
  .describe(
    'The RegistrationResponseJSON of `navigator.credentials.create()` with the options from ' +
      'user/passkeys/options (`PublicKeyCredential.toJSON()`, or an app platform’s passkey API).',
  );

/** An AuthenticationResponseJSON: what `navigator.credentials.get()` answered. */
export const assertionResponseField = object(responseSchema(ASSERTION_MEMBERS, { userHandle: base64url }))
  .convert(credentialShape<AuthenticationResponseJSON>(ASSERTION_MEMBERS))
  .describe(
    'The AuthenticationResponseJSON of `navigator.credentials.get()` with the options that came with ' +
      'the challenge (`PublicKeyCredential.toJSON()`, or an app platform’s passkey API).',
  );

/** The id of a challenge from an options endpoint. */
export const challengeIdField = string()
  .max(64)
  .describe('The `challenge_id` that came with the options the response answers.');

/** A passkey's name, as its owner calls it. */
export const passkeyNameField = string().max(100);
