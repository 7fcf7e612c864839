import { api } from '../lib/api.js';
import { when } from '../lib/dates.js';
import { allPageSentences } from '../lib/field-errors.js';
import { clearMessages, errorText, onSubmit, setError, setStatus } from '../lib/form.js';
import { t } from '../lib/i18n.js';
import { askForProof, type Reauth } from './reauth.js';
import { toLogin } from './user.js';

/** An export as user/export (each item), user/export/{id} and the POST answer it. */
interface DataExport {
  id: string;
  status: 'pending' | 'ready' | 'expired' | 'failed';
  download_url: string | null;
  expires_at: string | null;
}

/** While the page is open it asks for the status this often, at most this many times; the mail does the rest. */
const POLL_INTERVAL_MS = 3000;
const POLL_LIMIT = 100;
/** The longest delay setTimeout keeps (about 24.8 days); an expiry further off is waited for in steps. */
const LONGEST_TIMEOUT_MS = 2 ** 31 - 1;

/**
 * "Download my data": the owner's proof starts an export (as user/delete, the API re-authenticates), the
 * card then follows its status until the download link is there, and shows it until it expires. On load the
 * card shows the latest export, so a reload loses nothing: pending is followed again, ready shows its link,
 * expired (or failed) says so above the form that prepares a new one. `onRequested`: the request is now an
 * event of the Activity card.
 */
export function dataExportSection(reauth: Reauth, onRequested: () => void): { load(): Promise<void> } {
  const form = document.getElementById('data-export') as HTMLFormElement;
  const ready = document.getElementById('export-ready') as HTMLElement;
  const link = document.getElementById('export-download') as HTMLAnchorElement;
  const expires = document.getElementById('export-expires') as HTMLElement;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let expiry: ReturnType<typeof setTimeout> | undefined;
  /** Bumped by each request: the latest export read on load must not replace one just requested. */
  let requests = 0;

  /** Takes the link away when the export expires while the page stays open: it would only answer a 404. */
  function expireAt(exported: DataExport, at: number): void {
    clearTimeout(expiry);
    expiry = setTimeout(
      () => {
        if (Date.now() < at) expireAt(exported, at);
        else show({ ...exported, status: 'expired', download_url: null });
      },
      Math.min(Math.max(at - Date.now(), 0), LONGEST_TIMEOUT_MS),
    );
  }

  /** Shows the export; true while it is still being prepared. */
  function show(exported: DataExport): boolean {
    ready.hidden = true;
    clearTimeout(expiry);
    setError(form, '');
    if (exported.status === 'ready' && exported.download_url) {
      setStatus(form, t('export.ready'));
      // The API's own link (an http(s) URL of this service): an attribute, never markup.
      link.href = exported.download_url;
      expires.textContent = exported.expires_at
        ? t('export.expires').replace('{date}', when(exported.expires_at))
        : '';
      ready.hidden = false;
      if (exported.expires_at) expireAt(exported, Date.parse(exported.expires_at));
      return false;
    }
    if (exported.status === 'pending') {
      setStatus(form, t('export.pending'));
      return true;
    }
    if (exported.status === 'expired') {
      // Not an error: the form the message sits in prepares a new one.
      setStatus(form, t('export.expired'));
      return false;
    }
    setStatus(form, '');
    setError(form, t('export.failed'));
    return false;
  }

  function follow(id: string, polls: number): void {
    clearTimeout(timer);
    timer = setTimeout(() => {
      api<{ export: DataExport }>(`/user/export/${encodeURIComponent(id)}`).then(
        (answer) => {
          if (answer.status === 401) return toLogin();
          if (answer.status !== 200) return setError(form, errorText(answer));
          if (!show(answer.body.data.export)) return;
          if (polls + 1 < POLL_LIMIT) follow(id, polls + 1);
          else setStatus(form, t('export.still_pending'));
        },
        () => setError(form, t('error.network')),
      );
    }, POLL_INTERVAL_MS);
  }

  onSubmit(form, async () => {
    requests += 1;
    clearMessages(form);
    ready.hidden = true;
    clearTimeout(timer);
    clearTimeout(expiry);
    const proof = await reauth.proof();
    if (!proof) return askForProof(form);
    const answer = await api<{ export: DataExport }>('/user/export', { method: 'POST', body: proof });
    if (answer.status === 401) return toLogin();
    if (answer.status === 422) {
      const data = answer.body.data as Record<string, unknown>;
      return setError(form, reauth.refused(data) ?? allPageSentences(data).join(' '));
    }
    if (answer.status !== 202) return setError(form, errorText(answer));
    onRequested();
    const exported = answer.body.data.export;
    if (show(exported)) follow(exported.id, 0);
  });

  return {
    /** Shows the latest export, if any (the list's first item), and follows it while it is pending. */
    async load() {
      const before = requests;
      const answer = await api<{ exports: DataExport[] }>('/user/export?limit=1');
      if (answer.status === 401) return toLogin();
      if (requests !== before) return;
      if (answer.status !== 200) return setError(form, errorText(answer));
      const latest = answer.body.data.exports[0];
      if (latest && show(latest)) follow(latest.id, 0);
    },
  };
}
