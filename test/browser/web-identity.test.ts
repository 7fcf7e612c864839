import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_MISSING, chromiumInstalled, expectNoProblems, lookAt } from '../helpers/browser.js';
import { registerUser } from '../helpers/factories.js';
import { type FakePortOne, startFakePortOne } from '../helpers/portone.js';
import { PORTONE_SCRIPT_URL, replacePortOneScript } from '../helpers/portone-window.js';
import { useWebSuite } from '../helpers/web-suite.js';

/** PortOne's flow is several round trips and a page or two: room for a busy machine. */
const FLOW = { timeout: 10_000 };
const SUITE = 'web-identity';

describe.runIf(!chromiumInstalled && process.env.CI === 'true')('web identity card in Chromium (CI)', () => {
  it('needs Chromium in CI', () => {
    throw new Error(CHROMIUM_MISSING);
  });
});

/**
 * The profile's identity card with PortOne configured. PortOne's own script is replaced at the network
 * (test/helpers/portone-window.ts): the card runs @portone/browser-sdk as the service serves it, Chromium
 * checks the page's CSP before fetching the script, and the service asks the fake PortOne over HTTP.
 */
describe.skipIf(!chromiumInstalled)('the identity card on /profile', () => {
  let fake: FakePortOne;
  beforeAll(async () => {
    fake = await startFakePortOne();
  });
  afterAll(async () => {
    await fake?.close();
  });
  const suite = useWebSuite(() => fake.env());

  it('verifies through PortOne in Korean, then shows the account verified and adult', async () => {
    const me = await registerUser(suite.ctx.app);
    const { page, problems } = await suite.openSignedIn(me.token, { locale: 'ko-KR' });
    const portone = await replacePortOneScript(page, fake, () => ({
      verified: fake.person({ birthDate: '1995-06-01' }),
    }));
    const response = await page.goto('/profile#details');
    // The page admits PortOne's script, and keeps its hold on PortOne's pop-up.
    expect(response?.headers()['content-security-policy']).toContain(
      "script-src 'self' https://cdn.portone.io;",
    );
    expect(response?.headers()['cross-origin-opener-policy']).toBe('same-origin-allow-popups');
    const state = page.locator('#identity-state');
    await expect.poll(() => state.textContent(), FLOW).toBe('아직 본인인증을 하지 않았습니다.');
    await page.getByRole('button', { name: '본인인증 하기' }).click();
    await expect
      .poll(() => page.locator('#identity .status').textContent(), FLOW)
      .toBe('본인인증이 완료되었습니다.');
    expect(await state.textContent()).toBe('본인인증 완료. 성인(만 19세 이상).');
    await lookAt(page, SUITE, 'profile-identity-verified-ko');
    // The card called the SDK, which fetched PortOne's script past the CSP, and handed it the started id.
    expect(portone.scriptLoads).toBe(1);
    expect(portone.requests).toEqual([
      {
        storeId: fake.storeId,
        channelKey: fake.channelKey,
        identityVerificationId: expect.any(String),
        redirectUrl: `${new URL(page.url()).origin}/profile`,
      },
    ]);
    // The SDK the card loads is this service's copy of the npm package, never a CDN's.
    const sdk = await page.request.get('/assets/vendor/portone/v2.js');
    expect(sdk.headers()['content-type']).toBe('text/javascript; charset=utf-8');
    expect(await sdk.text()).toContain(PORTONE_SCRIPT_URL);
    // A page that runs no PortOne window keeps the strict policy.
    const login = await page.request.get('/login');
    expect(login.headers()['content-security-policy']).not.toContain('portone');
    expect(login.headers()['cross-origin-opener-policy']).toBe('same-origin');
    expectNoProblems(problems);
  });

  it('says so in English when the window was closed, verifies nothing, and lets the person try again', async () => {
    const me = await registerUser(suite.ctx.app);
    const { page, problems } = await suite.openSignedIn(me.token);
    const ends = [{ closed: true as const }, { verified: fake.person({ birthDate: '2010-03-02' }) }];
    const portone = await replacePortOneScript(page, fake, () => ends.shift() ?? { closed: true });
    await page.goto('/profile#details');
    const verify = page.getByRole('button', { name: 'Verify my identity' });
    await verify.click();
    await expect
      .poll(() => page.locator('#identity .error').textContent(), FLOW)
      .toBe('The verification was not completed.');
    expect(await page.locator('#identity-state').textContent()).toBe('Not verified yet.');
    await lookAt(page, SUITE, 'profile-identity-cancelled-en');
    const user = await suite.ctx.database.handle.db
      .selectFrom('users')
      .select('identity_verified_at')
      .where('id', '=', me.id)
      .executeTakeFirstOrThrow();
    expect(user.identity_verified_at).toBeNull();

    // Again, with a new id: this time the person (a minor) finishes.
    await verify.click();
    await expect.poll(() => page.locator('#identity-state').textContent(), FLOW).toBe('Verified. Under 19.');
    expect(await page.locator('#identity .error').textContent()).toBe('');
    const [first, second] = portone.requests;
    expect(second?.identityVerificationId).not.toBe(first?.identityVerificationId);
    expectNoProblems(problems);
  });
});
