import { describe, expect, it, vi } from 'vitest';
import { verifyLegacyBcrypt } from '../../src/lib/legacy-bcrypt.js';

// The native binding failing (it answers false for every malformed hash the pattern lets through, so only a
// fault of its own reaches the catch).
vi.mock('@node-rs/bcrypt', () => ({
  verify: async () => {
    throw new Error('native binding failed');
  },
}));

describe('a legacy bcrypt check whose library fails', () => {
  it('is a failed check, never an error', async () => {
    expect(await verifyLegacyBcrypt(`$2y$04$${'.'.repeat(53)}`, 'pw')).toBe(false);
  });
});
