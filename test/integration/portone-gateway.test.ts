import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/errors.js';
import { PortOneGateway, PortOneUnavailableError } from '../../src/modules/identity/portone.js';
import { IdentityVerifier } from '../../src/modules/identity/verifier.js';
import { type FakePortOne, startFakePortOne } from '../helpers/portone.js';

/** A port nothing listens on right now. */
function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** The gateway over real HTTP: what each of PortOne's answers (and silences) becomes. */
describe('PortOneGateway', () => {
  let fake: FakePortOne;
  const gateway = (overrides: { apiSecret?: string; apiUrl?: string } = {}) =>
    new PortOneGateway({
      apiSecret: fake.secret,
      storeId: fake.storeId,
      apiUrl: fake.url,
      timeoutMs: 2000,
      ...overrides,
    });
  beforeAll(async () => {
    fake = await startFakePortOne();
  });
  afterAll(async () => {
    await fake?.close();
  });

  it('tells a verified, an unfinished and an unknown verification apart', async () => {
    const person = fake.person();
    fake.script('iv-verified', 'VERIFIED', person);
    fake.script('iv-failed', 'FAILED', person);
    const verified = await gateway().lookUp('iv-verified');
    expect(verified).toMatchObject({ kind: 'verified', verification: { id: 'iv-verified' } });
    expect(await gateway().lookUp('iv-failed')).toEqual({ kind: 'not_verified', status: 'FAILED' });
    expect(await gateway().lookUp('iv-never-made')).toEqual({ kind: 'unknown' });
  });

  it('is unavailable when PortOne refuses our secret or cannot be reached, never "unknown"', async () => {
    fake.script('iv-any', 'VERIFIED', fake.person());
    await expect(gateway({ apiSecret: 'not-our-secret' }).lookUp('iv-any')).rejects.toBeInstanceOf(
      PortOneUnavailableError,
    );
    const nowhere = `http://127.0.0.1:${await closedPort()}`;
    await expect(gateway({ apiUrl: nowhere }).lookUp('iv-any')).rejects.toBeInstanceOf(
      PortOneUnavailableError,
    );
  });

  it('gives the verified person on the field the caller names: a masked name, never the CI', async () => {
    const verifier = new IdentityVerifier(gateway(), Buffer.alloc(32, 1));
    const person = fake.person({ birthDate: '1980-01-01', name: '최서연' });
    fake.script('iv-adult', 'VERIFIED', person);
    const verified = await verifier.fetchVerified('iv-adult', 'guardian');
    expect(verified).toMatchObject({ birthDate: '1980-01-01', maskedName: '최*연' });
    expect(verified.ciHash.toString('latin1')).not.toContain(person.ci);
    fake.script('iv-failed', 'FAILED', person);
    const refusal = await verifier.fetchVerified('iv-failed', 'guardian').catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(ValidationError);
    expect((refusal as ValidationError).failures).toEqual({ guardian: [{ rule: 'identity_not_verified' }] });
  });
});
