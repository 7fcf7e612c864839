import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { configError } from '../helpers/config.js';

describe('account deletion configuration', () => {
  it('waits 14 days by default and sweeps every 10 minutes; the cancel link is on this service', () => {
    const config = loadConfig({ PORT: '9090' });
    expect(config.deletion).toEqual({ graceDays: 14, sweepIntervalMs: 600_000 });
    expect(config.mail.deletionCancelUrl).toBe('http://localhost:9090/cancel-deletion?token={token}');
  });

  it('takes 0 (immediate deletion), a sweep interval and an app link', () => {
    const config = loadConfig({
      DELETION_GRACE_DAYS: '0',
      DELETION_SWEEP_INTERVAL: '30s',
      DELETION_CANCEL_URL: 'myapp://keep-account?token={token}',
    });
    expect(config.deletion).toEqual({ graceDays: 0, sweepIntervalMs: 30_000 });
    expect(config.mail.deletionCancelUrl).toBe('myapp://keep-account?token={token}');
  });

  it.each([
    ['DELETION_GRACE_DAYS', '-1'],
    ['DELETION_GRACE_DAYS', '366'],
    ['DELETION_GRACE_DAYS', 'two weeks'],
    ['DELETION_SWEEP_INTERVAL', '0s'],
    ['DELETION_CANCEL_URL', 'https://example.com/cancel'],
  ])('refuses %s=%s, naming the variable', (variable, value) => {
    expect(configError({ [variable]: value }).variable).toBe(variable);
  });
});
