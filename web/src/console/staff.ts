import { api } from '../lib/api.js';

/** The signed-in staff member as GET /admin/v1/me answers. */
export interface Me {
  staff: { id: string; email: string; role: string };
  permissions: string[];
  csrf_token: string;
}

/** Shows the bar's links whose permission (`data-permission`) the signed-in role has. */
export function showPermittedLinks(permissions: readonly string[]): void {
  for (const link of document.querySelectorAll<HTMLElement>('a[data-permission]')) {
    link.hidden = !permissions.includes(link.dataset.permission ?? '');
  }
}

/** Who is signed in; signed out, the page goes to the sign-in page (and this never resolves). */
export async function signedIn(): Promise<Me> {
  const answer = await api<Me>('/me');
  if (answer.status !== 200) {
    location.replace('/console/login');
    return new Promise<Me>(() => undefined);
  }
  showPermittedLinks(answer.body.data.permissions);
  return answer.body.data;
}

/** A POST of the session: its CSRF token in X-CSRF-Token (docs/console.md). */
export function post<T = Record<string, unknown>>(me: Me, path: string, body: Record<string, unknown>) {
  return api<T>(path, { method: 'POST', body, headers: { 'x-csrf-token': me.csrf_token } });
}

/**
 * Asks for the reason in the page's <dialog> (Escape or Cancel: undefined). The reason goes into the
 * access record with the action, so it is asked every time, never remembered.
 */
export function askReason(): Promise<string | undefined> {
  const dialog = document.getElementById('reason-dialog') as HTMLDialogElement;
  const form = document.getElementById('reason-form') as HTMLFormElement;
  const reason = document.getElementById('reason') as HTMLTextAreaElement;
  const cancel = document.getElementById('reason-cancel') as HTMLButtonElement;
  reason.value = '';
  dialog.showModal();
  return new Promise((resolve) => {
    const done = (value: string | undefined) => {
      form.removeEventListener('submit', submit);
      cancel.removeEventListener('click', close);
      dialog.removeEventListener('cancel', close);
      if (dialog.open) dialog.close();
      resolve(value);
    };
    const submit = (event: Event) => {
      event.preventDefault();
      if (reason.value.trim() === '') return reason.focus();
      done(reason.value.trim());
    };
    const close = () => done(undefined);
    form.addEventListener('submit', submit);
    cancel.addEventListener('click', close);
    dialog.addEventListener('cancel', close);
  });
}

/**
 * A row of `table` of text cells (textContent: nothing from the API is read as HTML), each labelled with its
 * column's heading, which a phone's width shows beside the value when the table stacks (10-console.css).
 */
export function row(table: HTMLElement, cells: Array<string | Node>): HTMLTableRowElement {
  const headings = Array.from(table.querySelectorAll('th'), (th) => th.textContent ?? '');
  const tr = document.createElement('tr');
  cells.forEach((cell, index) => {
    const td = document.createElement('td');
    td.dataset.label = headings[index] ?? '';
    td.append(cell);
    tr.append(td);
  });
  return tr;
}
