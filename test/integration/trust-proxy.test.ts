import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { unique } from '../helpers/factories.js';

/** Only the proxies named in TRUST_PROXY may say who the client is; anyone else's X-Forwarded-For is ignored. */
const LIMITED = {
  RATE_LIMIT_ENABLED: 'true',
  RATE_LIMIT_VALIDATE_IP: '2/1m',
  RATE_LIMIT_KEY_PREFIX: 'trust-proxy',
};

function validateFrom(
  app: ReturnType<typeof useTestApp>['app'],
  remoteAddress: string,
  forwardedFor: string,
): Promise<number> {
  return app
    .inject({
      method: 'POST',
      url: '/v1/validate/email',
      remoteAddress,
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': forwardedFor },
      payload: `email=proxy${unique()}%40example.com`,
    })
    .then((res) => res.statusCode);
}

describe('X-Forwarded-For without TRUST_PROXY', () => {
  const ctx = useTestApp('pglite', LIMITED);

  it('is ignored: a client naming a new address each time is still counted by its own', async () => {
    const statuses = [];
    for (let i = 1; i <= 3; i++) statuses.push(await validateFrom(ctx.app, '203.0.113.7', `198.51.100.${i}`));
    expect(statuses).toEqual([200, 200, 429]);
  });
});

describe('X-Forwarded-For with TRUST_PROXY naming the load balancer', () => {
  const ctx = useTestApp('pglite', { ...LIMITED, TRUST_PROXY: '10.0.0.0/8' });

  it('counts each client the load balancer names on its own', async () => {
    const statuses = [];
    for (let i = 1; i <= 3; i++) statuses.push(await validateFrom(ctx.app, '10.1.2.3', `198.51.100.${i}`));
    expect(statuses).toEqual([200, 200, 200]);
  });

  it('ignores the header from anyone else', async () => {
    const statuses = [];
    for (let i = 1; i <= 3; i++) statuses.push(await validateFrom(ctx.app, '203.0.113.9', `198.51.100.${i}`));
    expect(statuses).toEqual([200, 200, 429]);
  });
});
