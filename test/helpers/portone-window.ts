import type { Page } from 'playwright-core';
import type { FakePerson, FakePortOne } from './portone.js';

/** Where @portone/browser-sdk (served by the service) loads PortOne's own script from: compiled into it. */
export const PORTONE_SCRIPT_URL = 'https://cdn.portone.io/v2/browser-sdk.js';

/**
 * How the stand-in window ends: the person verifies (`verified`) or closes it (`closed`), and PortOne answers
 * the page's call (a computer's pop-up) or, with `redirect`, takes the tab to the page's `redirectUrl` with
 * the id in the query (a phone).
 */
export type WindowEnd = ({ verified: FakePerson } | { closed: true }) & { redirect?: boolean };

/** What the page handed PortOne's SDK. */
export interface WindowRequest {
  storeId: string;
  channelKey: string;
  identityVerificationId: string;
  redirectUrl?: string;
}

export interface PortOneWindow {
  readonly requests: WindowRequest[];
  /** How many times a page fetched PortOne's script: the page's CSP let it through. */
  readonly scriptLoads: number;
}

/**
 * PortOne's script, as the tests serve it: `window.PortOne.requestIdentityVerification`, which asks the test
 * (an exposed function) how the window ends. A string: this file is compiled without the DOM library.
 */
const SCRIPT = `window.PortOne = {
  requestIdentityVerification: async (request) => {
    const answer = await window.accountsTestPortOneWindow(request);
    if (answer.redirectTo === undefined) return answer;
    location.assign(answer.redirectTo);
    return new Promise(() => {});
  },
};
`;

/**
 * The one boundary the browser tests replace: PortOne's script at the network (Playwright's route), so the
 * pages run @portone/browser-sdk as served, the CSP decides whether the script may load (Chromium checks it
 * before the request is made), and the service still asks the fake PortOne over HTTP. A verified end scripts
 * the fake as PortOne's real window would leave it.
 */
export async function replacePortOneScript(
  page: Page,
  fake: FakePortOne,
  end: () => WindowEnd,
): Promise<PortOneWindow> {
  const seen: { requests: WindowRequest[]; scriptLoads: number } = { requests: [], scriptLoads: 0 };
  await page.exposeFunction('accountsTestPortOneWindow', (request: WindowRequest) => {
    seen.requests.push(request);
    const ended = end();
    const id = request.identityVerificationId;
    const common = { transactionType: 'IDENTITY_VERIFICATION', identityVerificationId: id };
    if ('verified' in ended) fake.script(id, 'VERIFIED', ended.verified);
    const failure: Record<string, string> =
      'closed' in ended ? { code: 'PORTONE_ERROR', message: '사용자가 본인인증을 취소하였습니다.' } : {};
    if (ended.redirect) {
      const query = new URLSearchParams({ identity_verification_id: id, ...failure });
      return { redirectTo: `${request.redirectUrl}?${query}` };
    }
    return { ...common, identityVerificationTxId: `tx-${id}`, ...failure };
  });
  await page.route(PORTONE_SCRIPT_URL, async (route) => {
    seen.scriptLoads += 1;
    await route.fulfill({ status: 200, contentType: 'text/javascript; charset=utf-8', body: SCRIPT });
  });
  return seen;
}
