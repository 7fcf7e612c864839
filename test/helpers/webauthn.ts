import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';

/**
 * A software authenticator for the tests: ES256 keys from node:crypto, `none` attestation, the authenticator
 * data written byte by byte (rpIdHash, flags, signCount, attested credential data with the COSE key) and the
 * attestation object in CBOR (the small encoder below: maps, byte and text strings, integers). It answers
 * the service's options as `PublicKeyCredential.toJSON()` would, and can be told to lie (another origin or
 * RP ID, a wrong signature, a counter of its choosing) so the tests can attack the service with it.
 */

type Cbor = number | string | Uint8Array | Cbor[] | Map<Cbor, Cbor>;

function cborHead(major: number, length: number): Buffer {
  if (length < 24) return Buffer.from([(major << 5) | length]);
  if (length < 0x100) return Buffer.from([(major << 5) | 24, length]);
  if (length < 0x10000) {
    const head = Buffer.alloc(3);
    head[0] = (major << 5) | 25;
    head.writeUInt16BE(length, 1);
    return head;
  }
  const head = Buffer.alloc(5);
  head[0] = (major << 5) | 26;
  head.writeUInt32BE(length, 1);
  return head;
}

/** RFC 8949 encoding of the few types WebAuthn's attestation object and COSE keys use. */
export function cbor(value: Cbor): Buffer {
  if (typeof value === 'number') {
    return value >= 0 ? cborHead(0, value) : cborHead(1, -1 - value);
  }
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'utf8');
    return Buffer.concat([cborHead(3, bytes.length), bytes]);
  }
  if (value instanceof Uint8Array) return Buffer.concat([cborHead(2, value.length), Buffer.from(value)]);
  if (Array.isArray(value)) return Buffer.concat([cborHead(4, value.length), ...value.map(cbor)]);
  const entries = [...value.entries()];
  return Buffer.concat([
    cborHead(5, entries.length),
    ...entries.flatMap(([key, inner]) => [cbor(key), cbor(inner)]),
  ]);
}

const FLAG = { UP: 0x01, UV: 0x04, BE: 0x08, BS: 0x10, AT: 0x40 } as const;

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest();

interface SoftwareCredential {
  id: Buffer;
  privateKey: KeyObject;
  cose: Buffer;
  userHandle: string;
  signCount: number;
}

/** What a ceremony may be made to lie about. */
export interface Tampering {
  origin?: string;
  rpId?: string;
  /** The counter to report (default: one more than the last, or 0 for a counter-less authenticator). */
  signCount?: number;
  /** Sign something else: the signature no longer matches. */
  badSignature?: boolean;
  /** Leave the user-verified flag out. */
  noUserVerification?: boolean;
  /** Answer a different challenge than the options'. */
  challenge?: string;
}

export interface RegistrationOptionsLike {
  challenge: string;
  rp: { id?: string };
  user: { id: string };
}

export interface RequestOptionsLike {
  challenge: string;
  rpId?: string;
}

export class SoftwareAuthenticator {
  readonly credentials: SoftwareCredential[] = [];

  /** `keepsCounter`: false for an authenticator that always reports 0 (as most passkey providers do). */
  constructor(
    readonly origin: string,
    private readonly keepsCounter = true,
  ) {}

  private authenticatorData(rpId: string, flags: number, signCount: number, attested?: Buffer): Buffer {
    const count = Buffer.alloc(4);
    count.writeUInt32BE(signCount, 0);
    return Buffer.concat([sha256(rpId), Buffer.from([flags]), count, ...(attested ? [attested] : [])]);
  }

  private clientData(type: string, challenge: string, origin: string): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }), 'utf8');
  }

  /** Makes a credential for `options` (user/passkeys/options' `options`): a RegistrationResponseJSON. */
  create(options: RegistrationOptionsLike, tampering: Tampering = {}) {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' });
    const cose = cbor(
      new Map<Cbor, Cbor>([
        [1, 2], // kty: EC2
        [3, -7], // alg: ES256
        [-1, 1], // crv: P-256
        [-2, Buffer.from(jwk.x as string, 'base64url')],
        [-3, Buffer.from(jwk.y as string, 'base64url')],
      ]),
    );
    const id = randomBytes(16);
    const credentialLength = Buffer.alloc(2);
    credentialLength.writeUInt16BE(id.length, 0);
    const attested = Buffer.concat([Buffer.alloc(16), credentialLength, id, cose]);
    const flags = FLAG.UP | (tampering.noUserVerification ? 0 : FLAG.UV) | FLAG.BE | FLAG.BS | FLAG.AT;
    const signCount = tampering.signCount ?? (this.keepsCounter ? 1 : 0);
    const authData = this.authenticatorData(
      tampering.rpId ?? options.rp.id ?? '',
      flags,
      signCount,
      attested,
    );
    const attestationObject = cbor(
      new Map<Cbor, Cbor>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', authData],
      ]),
    );
    const clientDataJSON = this.clientData(
      'webauthn.create',
      tampering.challenge ?? options.challenge,
      tampering.origin ?? this.origin,
    );
    const credential = { id, privateKey, cose, userHandle: options.user.id, signCount };
    this.credentials.push(credential);
    return {
      id: id.toString('base64url'),
      rawId: id.toString('base64url'),
      type: 'public-key',
      authenticatorAttachment: 'platform',
      clientExtensionResults: { credProps: { rk: true } },
      response: {
        clientDataJSON: clientDataJSON.toString('base64url'),
        attestationObject: attestationObject.toString('base64url'),
        transports: ['internal', 'hybrid'],
      },
    };
  }

  /** Answers `options` (a sign-in's or a re-authentication's) with a credential: an AuthenticationResponseJSON. */
  get(options: RequestOptionsLike, credential = this.credentials[0], tampering: Tampering = {}) {
    if (!credential) throw new Error('this authenticator holds no credential');
    const signCount = tampering.signCount ?? (this.keepsCounter ? credential.signCount + 1 : 0);
    credential.signCount = signCount;
    const flags = FLAG.UP | (tampering.noUserVerification ? 0 : FLAG.UV) | FLAG.BE | FLAG.BS;
    const authData = this.authenticatorData(tampering.rpId ?? options.rpId ?? '', flags, signCount);
    const clientDataJSON = this.clientData(
      'webauthn.get',
      tampering.challenge ?? options.challenge,
      tampering.origin ?? this.origin,
    );
    const signed = Buffer.concat([authData, sha256(clientDataJSON)]);
    const signature = sign(
      'sha256',
      tampering.badSignature ? randomBytes(64) : signed,
      credential.privateKey,
    );
    return {
      id: credential.id.toString('base64url'),
      rawId: credential.id.toString('base64url'),
      type: 'public-key',
      authenticatorAttachment: 'platform',
      clientExtensionResults: {},
      response: {
        clientDataJSON: clientDataJSON.toString('base64url'),
        authenticatorData: authData.toString('base64url'),
        signature: signature.toString('base64url'),
        userHandle: credential.userHandle,
      },
    };
  }
}

/** The relying party the passkey tests configure (WEBAUTHN_* from PUBLIC_URL). */
export const PASSKEY_ORIGIN = 'https://accounts.example.com';
export const PASSKEY_ENV = { PUBLIC_URL: PASSKEY_ORIGIN };

function okData<T>(res: LightMyRequestResponse): T {
  if (res.statusCode !== 200) throw new Error(`expected 200, got ${res.statusCode}: ${res.body}`);
  return (res.json() as { data: T }).data;
}

/** The HTTP steps of the passkey flows, for a test app's `inject`. */
export function passkeyFlows(app: FastifyInstance) {
  const post = (url: string, body: unknown, token?: string) =>
    app.inject({
      method: 'POST',
      url: `/v1${url}`,
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      payload: JSON.stringify(body),
    });
  return {
    post,
    /** Adds a passkey made by `authenticator` to the account (`proof`: its re-authentication fields). */
    async addPasskey(
      token: string,
      authenticator: SoftwareAuthenticator,
      proof: Record<string, unknown>,
      name?: string,
    ): Promise<{ id: string; name: string }> {
      const { options } = okData<{ options: RegistrationOptionsLike }>(
        await post('/user/passkeys/options', proof, token),
      );
      const response = authenticator.create(options);
      const { passkey } = okData<{ passkey: { id: string; name: string } }>(
        await post('/user/passkeys/add', { response, ...(name ? { name } : {}) }, token),
      );
      return passkey;
    },
    async signInOptions(): Promise<{ options: RequestOptionsLike; challenge_id: string }> {
      return okData(await post('/auth/login/passkey/options', {}));
    },
    /** The re-authentication fields answered by `authenticator`'s first credential (or `credential`). */
    async reauthProof(
      token: string,
      authenticator: SoftwareAuthenticator,
      credential = authenticator.credentials[0],
    ): Promise<{ passkey_challenge_id: string; passkey_response: unknown }> {
      const { options, challenge_id } = okData<{ options: RequestOptionsLike; challenge_id: string }>(
        await post('/user/passkeys/reauth-options', {}, token),
      );
      return { passkey_challenge_id: challenge_id, passkey_response: authenticator.get(options, credential) };
    },
  };
}

/**
 * Calls each passkey operation once through `check` (responses.test.ts: the real 200 against the declared
 * schema and example), in the order a user meets them, as `user` (who has a password).
 */
export async function checkPasskeyOperations(
  app: FastifyInstance,
  check: (operation: string, call: () => Promise<LightMyRequestResponse>) => Promise<Record<string, unknown>>,
  user: { token: string; password: string },
  origin: string,
): Promise<void> {
  const { post } = passkeyFlows(app);
  const call = (url: string, body: unknown, token?: string) => () => post(url, body, token);
  const authenticator = new SoftwareAuthenticator(origin);
  const proof = { current_password: user.password };
  const creation = await check(
    'POST /user/passkeys/options',
    call('/user/passkeys/options', proof, user.token),
  );
  const response = authenticator.create(creation.options as RegistrationOptionsLike);
  const added = await check('POST /user/passkeys/add', call('/user/passkeys/add', { response }, user.token));
  const { id } = added.passkey as { id: string };
  await check('GET /user/passkeys', () =>
    app.inject({
      method: 'GET',
      url: '/v1/user/passkeys',
      headers: { authorization: `Bearer ${user.token}` },
    }),
  );
  await check(
    'POST /user/passkeys/{id}/rename',
    call(`/user/passkeys/${id}/rename`, { name: '민지의 노트북' }, user.token),
  );
  await check('POST /user/passkeys/reauth-options', call('/user/passkeys/reauth-options', {}, user.token));
  const start = await check('POST /auth/login/passkey/options', call('/auth/login/passkey/options', {}));
  const assertion = authenticator.get(start.options as RequestOptionsLike);
  await check(
    'POST /auth/login/passkey',
    call('/auth/login/passkey', { challenge_id: start.challenge_id, response: assertion }),
  );
  await check('POST /user/passkeys/{id}/remove', call(`/user/passkeys/${id}/remove`, proof, user.token));
}
