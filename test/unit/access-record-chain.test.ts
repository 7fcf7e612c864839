import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  type ChainedFields,
  canonicalJson,
  canonicalRecord,
  checkLink,
  GENESIS_HASH,
  recordHash,
} from '../../src/modules/access-records/chain.js';

const FIELDS: ChainedFields = {
  seq: '7',
  at: new Date('2026-03-04T05:06:07.089Z'),
  actorKind: 'staff',
  actor: '0b7e3c1a-2d4f-4a6b-8c9d-0e1f2a3b4c5d',
  clientAddress: '203.0.113.9',
  subjectId: '6f1d2c3b-4a59-4876-9a5b-4c3d2e1f0a9b',
  action: 'user.unmask.email',
  reason: 'ticket 4512: the user asked which address is on file',
  outcome: 'ok',
  detail: { field: 'email' },
  prevHash: 'ab'.repeat(32),
};

describe('the access records’ canonical serialisation', () => {
  it('sorts object keys at every depth and drops undefined members', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { z: null, y: 'x' }], c: true }, u: undefined })).toBe(
      '{"a":{"c":true,"d":[2,{"y":"x","z":null}]},"b":1}',
    );
    expect(canonicalJson({ a: 1, b: 2 })).toBe(canonicalJson({ b: 2, a: 1 }));
  });

  it('refuses what has no JSON rather than dropping it', () => {
    expect(() => canonicalJson(undefined)).toThrow(TypeError);
    expect(() => canonicalJson([() => 1])).toThrow(TypeError);
  });

  it('serialises every field in a fixed order, versioned, times in UTC to the millisecond', () => {
    expect(canonicalRecord(FIELDS)).toBe(
      JSON.stringify([
        'v1',
        '7',
        '2026-03-04T05:06:07.089Z',
        'staff',
        FIELDS.actor,
        '203.0.113.9',
        FIELDS.subjectId,
        'user.unmask.email',
        FIELDS.reason,
        'ok',
        '{"field":"email"}',
        FIELDS.prevHash,
      ]),
    );
  });

  it('hashes that serialisation with SHA-256, in lower-case hex', () => {
    const expected = createHash('sha256').update(canonicalRecord(FIELDS), 'utf8').digest('hex');
    expect(recordHash(FIELDS)).toBe(expected);
    expect(recordHash(FIELDS)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('changes the hash when any one field changes', () => {
    const changes: Partial<ChainedFields>[] = [
      { seq: '8' },
      { at: new Date('2026-03-04T05:06:07.090Z') },
      { actorKind: 'cli' },
      { actor: 'root' },
      { clientAddress: null },
      { subjectId: null },
      { action: 'user.view' },
      { reason: null },
      { outcome: 'failed' },
      { detail: { field: 'phone' } },
      { prevHash: GENESIS_HASH },
    ];
    const hashes = new Set([
      recordHash(FIELDS),
      ...changes.map((change) => recordHash({ ...FIELDS, ...change })),
    ]);
    expect(hashes.size).toBe(changes.length + 1);
  });

  it('does not let a separator inside a field move a value into the next', () => {
    const a = { ...FIELDS, actor: 'a","b', clientAddress: 'c' };
    const b = { ...FIELDS, actor: 'a', clientAddress: 'b","c' };
    expect(recordHash(a)).not.toBe(recordHash(b));
  });
});

describe('a link of the chain', () => {
  const first = { ...FIELDS, seq: '1', prevHash: GENESIS_HASH };
  const stored = { ...first, hash: recordHash(first) };
  const start = { seq: 0n, hash: GENESIS_HASH };

  it('verifies when it follows its position, chains to it and gives its hash', () => {
    expect(checkLink(start, stored)).toBeUndefined();
  });

  it('names a gap before it, a broken link and a changed field', () => {
    expect(checkLink({ seq: 1n, hash: GENESIS_HASH }, stored)).toBe('missing_before');
    expect(checkLink({ seq: 0n, hash: 'cd'.repeat(32) }, stored)).toBe('prev_hash_mismatch');
    expect(checkLink(start, { ...stored, reason: 'changed' })).toBe('hash_mismatch');
  });
});
