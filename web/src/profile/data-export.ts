import { api } from '../lib/api.js';
import { when } from '../lib/dates.js';
import { clearMessages, errorText, onSubmit, setError, setStatus } from '../lib/form.js';
import { t } from '../lib/i18n.js';
import { clearInputs, inputValue, showMappedErrors } from './security-form.js';
import { toLogin } from './user.js';

/** An export as user/export and user/export/{id} answer it. */
interface DataExport {
  id: string;
  status: 'pending' | 'ready' | 'expired' | 'failed';
  download_url: string | null;
  expires_at: string | null;
}

/** While the page is open it asks for the status this often, at most this many times; the mail does the rest. */
const POLL_INTERVAL_MS = 3000;
const POLL_LIMIT = 100;

/**
 * "Download my data": the current password starts an export (as user/delete, the API re-authenticates), the
 * card then follows its status until the download link is there, and shows it. `onRequested`: the
 * request is now an event of the Activity card.
 */
export function dataExportSection(onRequested: () => void): void {
  const form = document.getElementById('data-export') as HTMLFormElement;
  const ready = document.getElementById('export-ready') as HTMLElement;
  const link = document.getElementById('export-download') as HTMLAnchorElement;
  const expires = document.getElementById('export-expires') as HTMLElement;
  let timer: ReturnType<typeof setTimeout> | undefined;

  /** Shows the export; true while it is still being prepared. */
  function show(exported: DataExport): boolean {
    ready.hidden = true;
    if (exported.status === 'ready' && exported.download_url) {
      setStatus(form, t('export.ready'));
      // The API's own link (an http(s) URL of this service): an attribute, never markup.
      link.href = exported.download_url;
      expires.textContent = exported.expires_at
        ? t('export.expires').replace('{date}', when(exported.expires_at))
        : '';
      ready.hidden = false;
      return false;
    }
    if (exported.status === 'pending') {
      setStatus(form, t('export.pending'));
      return true;
    }
    setStatus(form, '');
    setError(form, t(exported.status === 'failed' ? 'export.failed' : 'export.expired'));
    return false;
  }

  function follow(id: string, polls: number): void {
    clearTimeout(timer);
    timer = setTimeout(() => {
      api<{ export: DataExport }>(`/user/export/${encodeURIComponent(id)}`).then(
        (answer) => {
          if (answer.status === 401) return toLogin();
          if (answer.status !== 200) return setError(form, errorText(answer.body));
          if (!show(answer.body.data.export)) return;
          if (polls + 1 < POLL_LIMIT) follow(id, polls + 1);
          else setStatus(form, t('export.still_pending'));
        },
        () => setError(form, t('error.network')),
      );
    }, POLL_INTERVAL_MS);
  }

  onSubmit(form, async () => {
    clearMessages(form);
    ready.hidden = true;
    clearTimeout(timer);
    const answer = await api<{ export: DataExport }>('/user/export', {
      method: 'POST',
      body: { current_password: inputValue('export_password') },
    });
    if (answer.status === 401) return toLogin();
    if (answer.status === 422)
      return showMappedErrors(form, answer.body.data, { current_password: 'export_password' });
    if (answer.status !== 202) return setError(form, errorText(answer.body));
    clearInputs('export_password');
    onRequested();
    const exported = answer.body.data.export;
    if (show(exported)) follow(exported.id, 0);
  });
}
