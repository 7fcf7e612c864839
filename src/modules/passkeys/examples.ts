import type {
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
} from '@simplewebauthn/server';
import { t } from '../../http/response-schema.js';
import type { JsonSchema } from '../../validation/types.js';

/** The response shapes of the passkey endpoints, and one real example of each. */

const object: JsonSchema = { type: 'object', additionalProperties: true };
const array: JsonSchema = { type: 'array', items: object };

export const creationOptionsShape = t.json<PublicKeyCredentialCreationOptionsJSON>(
  'PublicKeyCredentialCreationOptionsJSON (WebAuthn Level 3): hand it to ' +
    '`PublicKeyCredential.parseCreationOptionsFromJSON()` and `navigator.credentials.create()`, or to an app ' +
    'platform’s passkey API, as it is.',
  {
    challenge: { type: 'string' },
    rp: object,
    user: object,
    pubKeyCredParams: array,
    timeout: { type: 'integer' },
    attestation: { type: 'string' },
    excludeCredentials: array,
    authenticatorSelection: object,
    extensions: object,
    hints: { type: 'array', items: { type: 'string' } },
  },
);

export const requestOptionsShape = t.json<PublicKeyCredentialRequestOptionsJSON>(
  'PublicKeyCredentialRequestOptionsJSON (WebAuthn Level 3): hand it to ' +
    '`PublicKeyCredential.parseRequestOptionsFromJSON()` and `navigator.credentials.get()`, or to an app ' +
    'platform’s passkey API, as it is.',
  {
    rpId: { type: 'string' },
    challenge: { type: 'string' },
    allowCredentials: array,
    timeout: { type: 'integer' },
    userVerification: { type: 'string' },
  },
);

export const passkeyShape = t.object({
  id: t.string(),
  name: t.string(),
  created_at: t.dateTime(),
  last_used_at: t.nullable(t.dateTime()),
});

export const passkeyExample = {
  id: '019ab0c5-1a2b-7c3d-8e4f-5a6b7c8d9e0f',
  name: 'Chrome on macOS',
  created_at: '2026-11-23T12:41:07.412Z',
  last_used_at: null,
};

export const creationOptionsExample: PublicKeyCredentialCreationOptionsJSON = {
  challenge: 'YAd4p1FAKiX64vs6h89n3734vxgA-jiabsK8tUOMjr0',
  rp: { name: 'accounts', id: 'accounts.example.com' },
  user: { id: 'q83vEjRWeJq83vEjRWeJq83vEjRWeJq83vEjRWeJq8M', name: 'minji@example.com', displayName: '민지' },
  pubKeyCredParams: [
    { alg: -8, type: 'public-key' },
    { alg: -7, type: 'public-key' },
    { alg: -257, type: 'public-key' },
  ],
  timeout: 300000,
  attestation: 'none',
  excludeCredentials: [],
  authenticatorSelection: {
    residentKey: 'required',
    userVerification: 'preferred',
    requireResidentKey: true,
  },
  extensions: { credProps: true },
  hints: [],
};

export const signInOptionsExample: PublicKeyCredentialRequestOptionsJSON = {
  rpId: 'accounts.example.com',
  challenge: 'ZjY1sjcaOjtjgc79OrHrf5ae4RDRdplfIU-Fh819dXk',
  allowCredentials: [],
  timeout: 300000,
  userVerification: 'required',
};

export const reauthOptionsExample: PublicKeyCredentialRequestOptionsJSON = {
  ...signInOptionsExample,
  allowCredentials: [
    { id: 'kTnV2vXr0cBq9yQmH1sWfA', type: 'public-key', transports: ['internal', 'hybrid'] },
  ],
};
