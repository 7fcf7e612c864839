import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { CHROMIUM_MISSING, chromiumInstalled, expectNoProblems, lookAt } from '../helpers/browser.js';
import { bearer, registerUser, unique } from '../helpers/factories.js';
import { expectOk, postForm } from '../helpers/http.js';
import { buildTestServices } from '../helpers/services.js';
import { useWebSuite } from '../helpers/web-suite.js';

const SUITE = 'web-consents';

/** A page's first answers come after its modules load and its calls return: slow on a busy machine. */
const LOADED = { timeout: 10_000 };

/** On the API's common-password list, though long and mixed enough for the local estimate to call it good. */
const COMMON_PASSWORD = 'christopher1';

interface Consent {
  key: string;
  version: number | null;
  agreed: boolean;
  agreed_at: string | null;
  withdrawn_at: string | null;
  current_version: number;
}

describe.runIf(!chromiumInstalled && process.env.CI === 'true')('web consents in Chromium (CI)', () => {
  it('needs Chromium in CI', () => {
    throw new Error(CHROMIUM_MISSING);
  });
});

describe.skipIf(!chromiumInstalled)('web pages in Chromium: consents at sign-up and on /profile', () => {
  const suite = useWebSuite();

  async function consentsOf(token: string): Promise<Record<string, Consent>> {
    const res = await suite.ctx.app.inject({
      method: 'GET',
      url: '/dev/user/consents',
      headers: bearer(token),
    });
    const { consents } = expectOk<{ consents: Consent[] }>(res);
    return Object.fromEntries(consents.map((consent) => [consent.key, consent]));
  }

  async function tokenOf(email: string, password: string): Promise<string> {
    const res = await postForm(suite.ctx.app, '/dev/auth/login/email', { email, password });
    return expectOk<{ user: { api_token: string } }>(res).user.api_token;
  }

  it('signs up after a refused first attempt, with only the optional consent that was ticked', async () => {
    const taken = await registerUser(suite.ctx.app);
    const { page, problems } = await suite.openPage();
    await page.goto('/signup');
    const required = page.locator('#required-documents li a');
    await expect
      .poll(() => required.allTextContents(), LOADED)
      .toEqual(['Collection and use of personal information', 'Terms of Service']);
    expect(await required.first().getAttribute('href')).toBe('/legal/privacy/1/en');
    const optional = page.locator('#optional-consents input[type="checkbox"]');
    await expect.poll(() => optional.count(), LOADED).toBe(4);
    // Nothing is ticked in advance, the required box included.
    expect(await page.locator('#signup input[type="checkbox"]:checked').count()).toBe(0);
    await lookAt(page, SUITE, 'signup');

    const username = `web${unique()}`;
    const password = `Quiet-Harbour-${unique()}`;
    await page.getByLabel('Email', { exact: true }).fill(`${username}@example.com`);
    await page.getByLabel('Username').fill(taken.username);
    await page.getByLabel('Female').check();
    // A password the local estimate calls good, but on the API's common-password list: the hint asks the API.
    await page.getByLabel('Password').fill(COMMON_PASSWORD);
    await expect
      .poll(() => page.locator('#password-strength').textContent(), LOADED)
      .toBe('Too common: it is on the list of passwords guessed first. Choose another.');
    expect(await page.locator('#password-strength').getAttribute('data-strength')).toBe('common');
    await lookAt(page, SUITE, 'signup-password-common');
    await page.getByLabel('Password').fill(password);
    await page.getByLabel('I agree to the required terms').check();
    await page.getByLabel('Marketing by email (optional)').check();
    const refused = page.waitForResponse((response) => response.url().endsWith('/auth/register'));
    await page.getByRole('button', { name: 'Create account' }).click();
    expect((await refused).status()).toBe(422);
    // Refused once: the taken name is flagged (by the live check or the submit's 422), the page stays.
    await expect.poll(() => page.locator('#username').getAttribute('aria-invalid')).toBe('true');
    await expect.poll(() => page.locator('#username-message').textContent()).toMatch(/taken/);
    expect(new URL(page.url()).pathname).toBe('/signup');
    await lookAt(page, SUITE, 'signup-refused');

    // Fixed and sent again: the same form, its ticks kept, reaches the profile.
    await page.getByLabel('Username').fill(username);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL('**/profile');
    await expect.poll(() => page.locator('#username').inputValue(), LOADED).toBe(username);
    const consents = await consentsOf(await tokenOf(`${username}@example.com`, password));
    expect(consents.terms).toMatchObject({ agreed: true, version: 1 });
    expect(consents.privacy).toMatchObject({ agreed: true, version: 1 });
    expect(consents.marketing_email).toMatchObject({ agreed: true, version: 1 });
    for (const key of ['marketing_push', 'marketing_sms', 'night_push']) {
      expect(consents[key], key).toMatchObject({ agreed: false, version: null });
    }
    expectNoProblems(problems);
  });

  it('lists the documents in Korean and signs up refusing every optional one', async () => {
    const { page, problems } = await suite.openPage({ locale: 'ko-KR' });
    await page.goto('/signup');
    await expect
      .poll(() => page.locator('#required-documents li').allTextContents(), LOADED)
      .toEqual(['개인정보 수집·이용 동의', '서비스 이용약관']);
    await expect
      .poll(() => page.locator('#optional-consents label').first().textContent())
      .toBe('광고성 정보 이메일 수신 동의 (선택)');
    await lookAt(page, SUITE, 'signup-ko');
    const username = `web${unique()}`;
    const password = `Quiet-Harbour-${unique()}`;
    await page.getByLabel('이메일', { exact: true }).fill(`${username}@example.com`);
    await page.getByLabel('사용자 이름').fill(username);
    await page.getByLabel('여성').check();
    await page.getByLabel('비밀번호').fill(COMMON_PASSWORD);
    await expect
      .poll(() => page.locator('#password-strength').textContent(), LOADED)
      .toBe('너무 흔한 비밀번호입니다. 다른 비밀번호를 정해 주세요.');
    await lookAt(page, SUITE, 'signup-password-common-ko');
    await page.getByLabel('비밀번호').fill(password);
    // The required box left unticked is the API's own message, in Korean; ticking it clears the message.
    await page.getByRole('button', { name: '계정 만들기' }).click();
    const agreement = page.locator('#user_agreement-message');
    await expect.poll(() => agreement.textContent()).toMatch(/[가-힣]/);
    // 전체 동의 ticks every box, the optional ones too (clearing the required one's message); each stays its
    // own: unticking the optional ones leaves 전체 동의 mixed, and only the required box ticked.
    const all = page.getByLabel('전체 동의 (선택 항목 포함)');
    await all.check();
    expect(await agreement.textContent()).toBe('');
    const boxes = page.locator('#signup input[type="checkbox"]:not(#agree_all)');
    expect(await Promise.all((await boxes.all()).map((box) => box.isChecked()))).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
    for (const box of await page.locator('#optional-consents input[type="checkbox"]').all())
      await box.uncheck();
    expect(await all.isChecked()).toBe(false);
    expect(await page.evaluate(`document.getElementById('agree_all').indeterminate`)).toBe(true);
    expect(await page.getByLabel('필수 약관에 모두 동의합니다').isChecked()).toBe(true);
    // The password's strength while typing, and a button that shows it.
    expect(await page.locator('#password-strength').textContent()).toMatch(/^(좋음|강함)\.$/);
    await page.getByRole('button', { name: '보기' }).click();
    expect(await page.locator('#password').getAttribute('type')).toBe('text');
    expect(await page.getByRole('button', { name: '숨기기' }).getAttribute('aria-pressed')).toBe('true');
    await page.getByRole('button', { name: '계정 만들기' }).click();
    await page.waitForURL('**/profile');
    const consents = await consentsOf(await tokenOf(`${username}@example.com`, password));
    expect(
      Object.values(consents)
        .filter((consent) => consent.agreed)
        .map((c) => c.key)
        .sort(),
    ).toEqual(['privacy', 'terms']);
    expectNoProblems(problems);
  });

  it('shows each consent on /profile and turns an optional one on and off; required ones stay', async () => {
    const me = await registerUser(suite.ctx.app);
    const { page, problems } = await suite.openSignedIn(me.token);
    await page.goto('/profile#privacy');
    const rows = page.locator('#consents li');
    await expect.poll(() => rows.count(), LOADED).toBe(6);
    const terms = rows.filter({ hasText: 'Terms of Service' });
    expect(await terms.locator('.meta').textContent()).toMatch(/^version 1 · agreed /);
    expect(await terms.locator('.badge').textContent()).toBe('Required, agreed');
    expect(await terms.locator('input').count()).toBe(0);
    expect(await page.locator('#consents-pending').isVisible()).toBe(false);

    const push = page.getByLabel('Marketing by push notification');
    expect(await push.isChecked()).toBe(false);
    await push.check();
    const status = page.locator('#consents-form .status');
    await expect
      .poll(() => status.textContent())
      .toBe('Saved: you agreed to “Marketing by push notification”.');
    expect((await consentsOf(me.token)).marketing_push).toMatchObject({ agreed: true, version: 1 });
    const pushRow = rows.filter({ hasText: 'Marketing by push notification' });
    expect(await pushRow.locator('.meta').textContent()).toMatch(/^version 1 · agreed /);

    await page.getByLabel('Marketing by push notification').uncheck();
    await expect.poll(() => status.textContent()).toMatch(/^Saved: you withdrew from/);
    expect(await pushRow.locator('.meta').textContent()).toMatch(/^version 1 · withdrawn /);
    const stored = (await consentsOf(me.token)).marketing_push;
    expect(stored).toMatchObject({ agreed: false, agreed_at: null });
    expect(stored?.withdrawn_at).toEqual(expect.any(String));
    await lookAt(page, SUITE, 'profile-privacy');
    expectNoProblems(problems);
  });

  it('offers to confirm a marketing agreement again once it nears two years, and records it', async () => {
    const me = await registerUser(suite.ctx.app);
    expectOk(
      await postForm(suite.ctx.app, '/dev/user/consents/update', { marketing_email: 'on' }, bearer(me.token)),
    );
    // As if agreed two years ago: the reminder's mail links here.
    await sql`UPDATE consent_records SET recorded_at = now() - interval '730 days'
      WHERE user_id = ${me.id} AND key = 'marketing_email'`.execute(suite.ctx.database.handle.db);
    const before = (await consentsOf(me.token)).marketing_email?.agreed_at ?? '';
    const { page, problems } = await suite.openSignedIn(me.token);
    await page.goto('/profile#privacy');
    const again = page.getByRole('button', { name: 'Confirm again: Marketing by email' });
    await expect.poll(() => again.isVisible(), LOADED).toBe(true);
    // Only the old agreement offers it.
    expect(await page.getByRole('button', { name: /^Confirm again/ }).count()).toBe(1);
    await lookAt(page, SUITE, 'profile-privacy-reconfirm');
    await again.click();
    await expect.poll(() => again.isVisible()).toBe(false);
    const after = (await consentsOf(me.token)).marketing_email;
    expect(after).toMatchObject({ agreed: true, version: 1 });
    expect(Date.parse(after?.agreed_at ?? '')).toBeGreaterThan(Date.parse(before));
    expect(await page.getByLabel('Marketing by email', { exact: true }).isChecked()).toBe(true);
    expectNoProblems(problems);
  });

  // Last: it publishes a new version of the terms, which every later sign-up of this app would agree to.
  it('prompts for a new version of a required document and records the agreement to it', async () => {
    const me = await registerUser(suite.ctx.app);
    await buildTestServices(suite.ctx).consents.publish({
      key: 'terms',
      version: 2,
      required: true,
      texts: {
        en: { title: 'Terms of Service', url: '/legal/terms/2/en' },
        ko: { title: '서비스 이용약관', url: '/legal/terms/2/ko' },
      },
    });
    const { page, problems } = await suite.openSignedIn(me.token, { locale: 'ko-KR' });
    // The reminder's link names no section: the profile opens the one that waits for the user.
    await page.goto('/profile');
    await page.waitForURL('**/profile#privacy');
    await expect.poll(() => page.locator('#consents-pending').isVisible(), LOADED).toBe(true);
    const terms = page.locator('#consents li').filter({ hasText: '서비스 이용약관' });
    expect(await terms.locator('.pending').textContent()).toBe('버전 2에 동의가 필요합니다.');
    await lookAt(page, SUITE, 'profile-privacy-pending-ko');
    await page.getByRole('button', { name: '동의: 서비스 이용약관' }).click();
    await expect.poll(() => page.locator('#consents-pending').isVisible()).toBe(false);
    expect(await terms.locator('.meta').textContent()).toMatch(/^버전 2 · /);
    expect((await consentsOf(me.token)).terms).toMatchObject({
      agreed: true,
      version: 2,
      current_version: 2,
    });
    expectNoProblems(problems);
  });
});
