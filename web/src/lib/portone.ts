import type { IdentityVerificationResponse } from '../vendor/portone/v2.js';

/** What `user/identity/start` and `guardian/identity/start` answer: what PortOne's SDK is handed. */
export interface StartedVerification {
  identity_verification_id: string;
  store_id: string;
  channel_key: string;
}

/**
 * How PortOne's window ended: `completed` (PortOne says so; the service still asks PortOne itself),
 * `closed` (the person closed or cancelled it, or the carrier refused), `failed` (it could not open:
 * PortOne's script did not load, or a pop-up blocker stopped it).
 */
export type WindowOutcome = 'completed' | 'closed' | 'failed';

/** Where the tab keeps a verification under way while a phone's browser is away at PortOne's page. */
const PENDING_KEY = 'accounts.portone_pending';

interface Pending<T> {
  page: string;
  id: string;
  context: T;
}

/**
 * Runs PortOne's verification window (@portone/browser-sdk, served by this service; it loads PortOne's own
 * script, which the page's CSP admits where PortOne is configured). On a computer the window is a pop-up and
 * the call answers when it closes. On a phone PortOne may instead take the whole tab to its page and send it
 * back to `returnPath` with the id in the query: then the call never answers, and the page picks the
 * verification up with `portOneReturn` when it loads again. `context` (what the page was doing: the
 * guardian's link and answer) waits for that in the tab's sessionStorage, never in the address PortOne is
 * given, so no link's token travels to PortOne.
 */
export async function runPortOneWindow<T>(
  page: string,
  started: StartedVerification,
  context: T,
): Promise<WindowOutcome> {
  const id = started.identity_verification_id;
  const pending: Pending<T> = { page, id, context };
  sessionStorage.setItem(PENDING_KEY, JSON.stringify(pending));
  let outcome: IdentityVerificationResponse | undefined;
  try {
    // Loaded when first needed: most visits never verify.
    const { requestIdentityVerification } = await import('../vendor/portone/v2.js');
    outcome = await requestIdentityVerification({
      storeId: started.store_id,
      channelKey: started.channel_key,
      identityVerificationId: id,
      redirectUrl: new URL(location.pathname, location.origin).href,
    });
  } catch {
    sessionStorage.removeItem(PENDING_KEY);
    return 'failed';
  }
  // No answer at all is how the SDK may leave for PortOne's page: what waits for the return stays.
  if (!outcome) return 'closed';
  sessionStorage.removeItem(PENDING_KEY);
  return outcome.code === undefined ? 'completed' : 'closed';
}

/** The query parameters PortOne's redirect adds (its documents name them in snake case, its SDK in camel). */
const RETURN_PARAMS = ['identity_verification_id', 'identityVerificationId', 'code', 'message'] as const;

/**
 * Back from PortOne's page (a phone's redirect): the verification this tab started on `page`, whether PortOne
 * reports it completed, and what the page was doing. Only an id this tab started here counts: a link made up
 * with some id in it finds nothing waiting and does nothing. PortOne's parameters leave the address either way.
 */
export function portOneReturn<T>(page: string): { id: string; completed: boolean; context: T } | undefined {
  const query = new URLSearchParams(location.search);
  const id = query.get('identity_verification_id') ?? query.get('identityVerificationId');
  if (id === null) return undefined;
  const completed = query.get('code') === null;
  for (const name of RETURN_PARAMS) query.delete(name);
  const rest = query.toString();
  history.replaceState(null, '', `${location.pathname}${rest ? `?${rest}` : ''}${location.hash}`);
  const stored = sessionStorage.getItem(PENDING_KEY);
  sessionStorage.removeItem(PENDING_KEY);
  let pending: Pending<T> | undefined;
  try {
    pending = stored ? (JSON.parse(stored) as Pending<T>) : undefined;
  } catch {
    pending = undefined;
  }
  if (pending?.page !== page || pending.id !== id) return undefined;
  return { id, completed, context: pending.context };
}
