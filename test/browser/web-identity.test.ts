import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_MISSING, chromiumInstalled, expectNoProblems, lookAt } from '../helpers/browser.js';
import { registerUser } from '../helpers/factories.js';
import { type FakePerson, type FakePortOne, startFakePortOne } from '../helpers/portone.js';
import type { OpenedPage } from '../helpers/web-suite.js';
import { useWebSuite } from '../helpers/web-suite.js';

const SUITE = 'web-identity';

describe.runIf(!chromiumInstalled && process.env.CI === 'true')('web identity card in Chromium (CI)', () => {
  it('needs Chromium in CI', () => {
    throw new Error(CHROMIUM_MISSING);
  });
});

/**
 * The one boundary replaced: PortOne's verification window (`window.accountsPortOne`, the card's test seam).
 * It scripts the fake PortOne as the real window would leave PortOne (`person` verified, or nothing when
 * `person` is undefined: the user closed it), so the service still asks PortOne over HTTP.
 */
async function replacePortOneWindow(opened: OpenedPage, fake: FakePortOne, person: FakePerson | undefined) {
  await opened.page.exposeFunction('fakePortOneWindow', (id: string) => {
    if (!person)
      return { identityVerificationId: id, code: 'IDENTITY_VERIFICATION_CANCELLED', message: 'closed' };
    fake.script(id, 'VERIFIED', person);
    return { identityVerificationId: id };
  });
  await opened.page.addInitScript(() => {
    const call = (globalThis as unknown as { fakePortOneWindow: (id: string) => Promise<unknown> })
      .fakePortOneWindow;
    (globalThis as unknown as { accountsPortOne: unknown }).accountsPortOne = {
      requestIdentityVerification: (request: { identityVerificationId: string }) =>
        call(request.identityVerificationId),
    };
  });
}

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
    const opened = await suite.openSignedIn(me.token, { locale: 'ko-KR' });
    const { page, problems } = opened;
    await replacePortOneWindow(opened, fake, fake.person({ birthDate: '1995-06-01' }));
    await page.goto('/profile#details');
    const state = page.locator('#identity-state');
    await expect.poll(() => state.textContent()).toBe('아직 본인인증을 하지 않았습니다.');
    await page.getByRole('button', { name: '본인인증 하기' }).click();
    await expect
      .poll(() => page.locator('#identity .status').textContent())
      .toBe('본인인증이 완료되었습니다.');
    expect(await state.textContent()).toBe('본인인증 완료. 성인(만 19세 이상).');
    await lookAt(page, SUITE, 'profile-identity-verified-ko');
    // The SDK the card loads outside the tests is this service's copy of the npm package, never a CDN's.
    const sdk = await page.request.get('/assets/vendor/portone/v2.js');
    expect(sdk.status()).toBe(200);
    expect(sdk.headers()['content-type']).toBe('text/javascript; charset=utf-8');
    expect(await sdk.text()).toContain('function requestIdentityVerification');
    expectNoProblems(problems);
  });

  it('says so in English when the window was closed, and verifies nothing', async () => {
    const me = await registerUser(suite.ctx.app);
    const opened = await suite.openSignedIn(me.token);
    const { page, problems } = opened;
    await replacePortOneWindow(opened, fake, undefined);
    await page.goto('/profile#details');
    await page.getByRole('button', { name: 'Verify my identity' }).click();
    await expect
      .poll(() => page.locator('#identity .error').textContent())
      .toBe('The verification was not completed.');
    expect(await page.locator('#identity-state').textContent()).toBe('Not verified yet.');
    await lookAt(page, SUITE, 'profile-identity-cancelled-en');
    expectNoProblems(problems);
  });
});
