import { consoleAnswerText } from '../console/answers.js';
import { row, signedIn } from '../console/staff.js';
import { api } from '../lib/api.js';
import { clearMessages, onSubmit, setError, showValidationErrors } from '../lib/form.js';
import { t } from '../lib/i18n.js';

/** /console/audit: the access records by staff, subject, action and period, and the monthly review. */
const filter = document.getElementById('audit-filter') as HTMLFormElement;
const table = document.getElementById('records') as HTMLElement;
const body = document.querySelector('#records tbody') as HTMLElement;
const none = document.getElementById('records-none') as HTMLElement;
const next = document.getElementById('next') as HTMLButtonElement;
const review = document.getElementById('review') as HTMLFormElement;
const findings = document.getElementById('findings') as HTMLElement;
const noFindings = document.getElementById('findings-none') as HTMLElement;

interface AuditRecord {
  at: string;
  actor_kind: string;
  actor: string;
  client_address: string | null;
  subject_id: string | null;
  action: string;
  reason: string | null;
  outcome: string;
}

let cursor: string | null = null;

function query(): URLSearchParams {
  const params = new URLSearchParams();
  for (const [name, value] of new FormData(filter)) {
    if (typeof value === 'string' && value.trim() !== '') params.set(name, value.trim());
  }
  return params;
}

async function load(append: boolean): Promise<void> {
  clearMessages(filter);
  const params = query();
  if (append && cursor) params.set('cursor', cursor);
  const answer = await api<{ records: AuditRecord[]; next_cursor: string | null }>(`/audit?${params}`);
  if (answer.status === 422) return showValidationErrors(filter, answer.body.data);
  if (answer.status !== 200) return setError(filter, consoleAnswerText(answer));
  if (!append) body.replaceChildren();
  for (const record of answer.body.data.records) {
    const who = record.actor_kind === 'cli' ? `cli:${record.actor}` : record.actor;
    body.append(
      row(table, [
        record.at.replace('T', ' ').slice(0, 19),
        who,
        record.client_address ?? '—',
        record.subject_id ?? '—',
        record.action,
        record.reason ?? '',
        record.outcome,
      ]),
    );
  }
  cursor = answer.body.data.next_cursor;
  next.hidden = cursor === null;
  none.hidden = body.childElementCount > 0;
}

onSubmit(filter, () => load(false));
next.addEventListener('click', () => {
  load(true).catch(() => setError(filter, t('error.network')));
});

onSubmit(review, async () => {
  clearMessages(review);
  const month = String(new FormData(review).get('month') ?? '');
  const answer = await api<{ findings: Record<string, unknown>[] }>(
    `/audit/review?month=${encodeURIComponent(month)}`,
  );
  if (answer.status === 422) return showValidationErrors(review, answer.body.data);
  if (answer.status !== 200) return setError(review, consoleAnswerText(answer));
  findings.replaceChildren(
    ...answer.body.data.findings.map((finding) => {
      const li = document.createElement('li');
      const { kind, actor_kind: _kind, actor, ...rest } = finding;
      li.textContent = `${String(kind)} · ${String(actor)} · ${JSON.stringify(rest)}`;
      return li;
    }),
  );
  noFindings.hidden = answer.body.data.findings.length > 0;
});

const month = document.getElementById('month') as HTMLInputElement;
month.value = new Date().toISOString().slice(0, 7);
signedIn()
  .then(() => load(false))
  .catch(() => setError(filter, t('error.network')));
