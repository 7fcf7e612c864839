import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_MISSING, chromiumInstalled, expectNoProblems, screenshot } from '../helpers/browser.js';
import { unique } from '../helpers/factories.js';
import { askGuardian, bornYearsAgo, registerChild } from '../helpers/guardian.js';
import { latestToken } from '../helpers/mail.js';
import { type FakePortOne, startFakePortOne } from '../helpers/portone.js';
import { replacePortOneScript } from '../helpers/portone-window.js';
import { useWebSuite } from '../helpers/web-suite.js';

/** A sign-up, or PortOne's flow: several round trips and a page or two, with room for a busy machine. */
const FLOW = { timeout: 10_000 };
const SUITE = 'web-guardian';

describe.runIf(!chromiumInstalled && process.env.CI === 'true')('web guardian pages in Chromium (CI)', () => {
  it('needs Chromium in CI', () => {
    throw new Error(CHROMIUM_MISSING);
  });
});

/**
 * AGE_GATE=birth_date: /signup asks the date of birth, and a child under 14 names a guardian right after
 * signing up; the guardian's page (Korean first) shows what the child agreed to and records the answer.
 */
describe.skipIf(!chromiumInstalled)(
  'web pages in Chromium: a child’s sign-up and the guardian’s page',
  () => {
    const suite = useWebSuite(() => ({ AGE_GATE: 'birth_date' }));

    it('signs a child up, asks the guardian, and the guardian consents in Korean', async () => {
      const username = `kid${unique()}`;
      const guardian = `parent${unique()}@example.com`;
      const { page, problems } = await suite.openPage();
      await page.goto('/signup');
      await page.getByLabel('Email', { exact: true }).fill(`${username}@example.com`);
      await page.getByLabel('Username').fill(username);
      await page.getByLabel('Female').check();
      await page.getByLabel('Date of birth').fill(bornYearsAgo(10));
      await page.getByLabel('Password', { exact: true }).fill(`Quiet-Harbour-${unique()}`);
      await page.getByLabel('I agree to the required terms').check();
      await screenshot(page, SUITE, '01-signup-with-birth-date');
      await page.getByRole('button', { name: 'Create account' }).click();

      const step = page.locator('#guardian-step');
      await expect.poll(() => step.isVisible(), FLOW).toBe(true);
      await screenshot(page, SUITE, '02-guardian-step');
      await page.getByLabel('Parent or guardian’s email').fill(guardian);
      await page.getByRole('button', { name: 'Ask my guardian' }).click();
      await expect
        .poll(() => step.locator('.status').textContent(), FLOW)
        .toBe('Sent. When your guardian agrees, you can use everything.');
      expectNoProblems(problems);

      const token = await latestToken(suite.ctx.database.handle, guardian, 'guardian_consent_request');
      const parent = await suite.openPage({ locale: 'ko-KR' });
      const response = await parent.page.goto(`/guardian-consent?token=${token}`);
      // Without PortOne, the mailed link is the method, and the page admits no PortOne script.
      expect(response?.headers()['content-security-policy']).toContain("script-src 'self';");
      expect(response?.headers()['content-security-policy']).not.toContain('portone');
      await expect.poll(() => parent.page.locator('h1').textContent(), FLOW).toBe('법정대리인 동의');
      await expect.poll(() => parent.page.locator('#guardian-lead').textContent(), FLOW).toContain(username);
      await expect.poll(() => parent.page.locator('#guardian-documents li').count(), FLOW).toBeGreaterThan(0);
      await screenshot(parent.page, SUITE, '03-guardian-page-korean');
      await parent.page.getByRole('button', { name: '동의합니다' }).click();
      await expect.poll(() => parent.page.locator('#form-status').textContent(), FLOW).toMatch(/^감사합니다/);
      await screenshot(parent.page, SUITE, '04-guardian-consented');
      const row = await suite.ctx.database.handle.db
        .selectFrom('users')
        .select('guardian_consent')
        .where('username', '=', username)
        .executeTakeFirstOrThrow();
      expect(row.guardian_consent).toBe('granted');
      // The link is used: opened again, the page says so and offers nothing to press.
      await parent.page.reload();
      await expect.poll(() => parent.page.locator('#token-message').textContent(), FLOW).not.toBe('');
      expect(await parent.page.getByRole('button', { name: '동의합니다' }).isVisible()).toBe(false);
      expectNoProblems(parent.problems);
    });
  },
);

/**
 * With PortOne configured, the guardian's page verifies the guardian first, whichever button is pressed:
 * guardian/identity/start, PortOne's window (its script replaced at the network, test/helpers/portone-window.ts),
 * then guardian/consent with the verification's id, which the service checks with the fake PortOne.
 */
describe.skipIf(!chromiumInstalled)('the guardian’s page with PortOne: a verified adult answers', () => {
  let fake: FakePortOne;
  beforeAll(async () => {
    fake = await startFakePortOne();
  });
  afterAll(async () => {
    await fake?.close();
  });
  const suite = useWebSuite(() => ({ AGE_GATE: 'birth_date', ...fake.env() }));
  const db = () => suite.ctx.database.handle.db;
  const consentOf = (childId: string) =>
    db().selectFrom('users').select('guardian_consent').where('id', '=', childId).executeTakeFirst();
  const recordsOf = (childId: string) =>
    db()
      .selectFrom('guardian_consents')
      .select(['method', 'agreed', 'guardian_ci_hash'])
      .where('user_id', '=', childId)
      .execute();
  const openLink = async (locale: string) => {
    const child = await registerChild(suite.ctx.app);
    const { token } = await askGuardian(suite.ctx.app, suite.ctx.database.handle, child);
    const opened = await suite.openPage({ locale });
    return { child, token, ...opened };
  };

  it('verifies an adult guardian in Korean, records the consent with their CI hash', async () => {
    const { child, token, page, problems } = await openLink('ko-KR');
    const guardian = fake.person({ birthDate: bornYearsAgo(40) });
    const portone = await replacePortOneScript(page, fake, () => ({ verified: guardian }));
    const response = await page.goto(`/guardian-consent?token=${token}`);
    expect(response?.headers()['content-security-policy']).toContain('https://cdn.portone.io');
    await expect.poll(() => page.locator('#guardian-method').textContent(), FLOW).toContain('본인인증');
    await screenshot(page, SUITE, '05-portone-guardian-page-korean');
    await page.getByRole('button', { name: '동의합니다' }).click();
    await expect.poll(() => page.locator('#form-status').textContent(), FLOW).toMatch(/^감사합니다/);
    await screenshot(page, SUITE, '06-portone-guardian-consented');
    expect(portone.scriptLoads).toBe(1);
    expect(portone.requests[0]?.identityVerificationId).toMatch(/^gv-/);
    expect((await consentOf(child.id))?.guardian_consent).toBe('granted');
    const [record, ...more] = await recordsOf(child.id);
    expect(more).toEqual([]);
    expect(record).toMatchObject({ method: 'identity_verification', agreed: true });
    expect(Buffer.from(record?.guardian_ci_hash ?? []).length).toBe(32);
    expectNoProblems(problems);
  });

  it('tells a minor in English that only an adult can answer, records nothing, and allows another try', async () => {
    const { child, token, page, problems } = await openLink('en-US');
    const ends = [{ verified: fake.person({ birthDate: bornYearsAgo(17) }) }, { closed: true as const }];
    await replacePortOneScript(page, fake, () => ends.shift() ?? { closed: true });
    await page.goto(`/guardian-consent?token=${token}`);
    const agree = page.getByRole('button', { name: 'I agree' });
    await agree.click();
    await expect
      .poll(() => page.locator('#form-error').textContent(), FLOW)
      .toBe(
        'The identity verification did not confirm an adult (19 or over). Only an adult legal guardian can answer for a child, so nothing was recorded.',
      );
    await screenshot(page, SUITE, '07-portone-guardian-minor-english');
    expect((await consentOf(child.id))?.guardian_consent).toBe('pending');
    expect(await recordsOf(child.id)).toEqual([]);
    // The link still works: another try, this time the window is closed.
    await agree.click();
    await expect
      .poll(() => page.locator('#form-error').textContent(), FLOW)
      .toBe('The identity verification was not completed, so nothing was recorded. You can try again.');
    expect(await agree.isVisible()).toBe(true);
    expect(await recordsOf(child.id)).toEqual([]);
    expectNoProblems(problems);
  });

  it('finishes a refusal when a phone’s browser comes back from PortOne’s page', async () => {
    const { child, token, page, problems } = await openLink('en-US');
    const guardian = fake.person({ birthDate: bornYearsAgo(45) });
    await replacePortOneScript(page, fake, () => ({ verified: guardian, redirect: true }));
    await page.goto(`/guardian-consent?token=${token}`);
    await page.getByRole('button', { name: 'I refuse' }).click();
    await expect
      .poll(() => page.locator('#form-status').textContent(), FLOW)
      .toBe('Recorded: the account and everything collected for it have been deleted.');
    // PortOne's parameters left the address, and the link came back into it.
    expect(new URL(page.url()).search).toBe(`?token=${token}`);
    await screenshot(page, SUITE, '08-portone-guardian-refused-after-redirect');
    expect(await consentOf(child.id)).toBeUndefined();
    expectNoProblems(problems);
  });
});
