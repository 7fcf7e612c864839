import { describe, expect, it } from 'vitest';
import { InvalidCredentialsError, ProviderUnavailableError, TooManyRequestsError } from '../../src/errors.js';
import { PasswordHasher } from '../../src/lib/passwords.js';
import { observedCounter } from '../../src/limits/observed-counter.js';
import { AppMetrics } from '../../src/metrics/metrics.js';
import { observedVerifier } from '../../src/providers/observed-verifier.js';
import { parseExposition, total } from '../helpers/metrics.js';

const samples = async (metrics: AppMetrics) => parseExposition(await metrics.registry.metrics());

describe('metrics observers', () => {
  it('tracks argon2 work in flight while it runs and times it when it ends', async () => {
    const metrics = new AppMetrics();
    const hasher = new PasswordHasher({ memoryKib: 1024, timeCost: 1, parallelism: 1 }, metrics.hashObserver);
    const pending = [hasher.hash('one password'), hasher.hash('another password')];
    expect(total(await samples(metrics), 'argon2_in_flight', { operation: 'hash' })).toBe(2);
    const [stored] = await Promise.all(pending);
    expect(await hasher.verify(stored as string, 'wrong')).toBe(false);
    const after = await samples(metrics);
    expect(total(after, 'argon2_in_flight')).toBe(0);
    expect(total(after, 'argon2_duration_seconds_count', { operation: 'hash' })).toBe(2);
    expect(total(after, 'argon2_duration_seconds_count', { operation: 'verify' })).toBe(1);
    // Not argon2 at all: nothing hashed, nothing counted.
    expect(await hasher.verify('$2y$10$notargon', 'x')).toBe(false);
    expect(total(await samples(metrics), 'argon2_duration_seconds_count', { operation: 'verify' })).toBe(1);
  });

  it('records each provider verification by outcome', async () => {
    const metrics = new AppMetrics();
    const failures: Record<string, unknown> = {
      good: undefined,
      refused: new InvalidCredentialsError(),
      down: new ProviderUnavailableError('alpha'),
      broken: new TypeError('bug'),
    };
    const verifier = observedVerifier(
      {
        name: 'alpha',
        verify: async (userId) => {
          if (failures[userId] !== undefined) throw failures[userId];
          return { email: undefined, emailVerified: false };
        },
      },
      metrics.verificationObserver,
    );
    await verifier.verify('good', 't');
    await expect(verifier.verify('refused', 't')).rejects.toBe(failures.refused);
    await expect(verifier.verify('down', 't')).rejects.toBe(failures.down);
    await expect(verifier.verify('broken', 't')).rejects.toBe(failures.broken);
    const after = await samples(metrics);
    for (const outcome of ['ok', 'rejected', 'unavailable', 'error']) {
      expect(total(after, 'provider_verifications_total', { provider: 'alpha', outcome })).toBe(1);
    }
    expect(total(after, 'provider_verification_duration_seconds_count', { provider: 'alpha' })).toBe(4);
  });

  it('counts only the hits a limit refuses, by the limit name and never the key', async () => {
    const metrics = new AppMetrics();
    let over = false;
    const counter = observedCounter(
      {
        consume: async () => {
          if (over) throw new TooManyRequestsError(30);
        },
        refund: async () => {},
        reset: async () => {},
      },
      'login-ip',
      metrics.rateLimitObserver,
    );
    await counter.consume('198.51.100.7');
    over = true;
    await expect(counter.consume('198.51.100.7')).rejects.toBeInstanceOf(TooManyRequestsError);
    const after = await samples(metrics);
    expect(total(after, 'rate_limit_rejections_total')).toBe(1);
    expect(after.find((s) => s.name === 'rate_limit_rejections_total')?.labels).toEqual({
      limit: 'login-ip',
    });
  });
});
