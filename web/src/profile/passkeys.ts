import { api } from '../lib/api.js';
import { when } from '../lib/dates.js';
import { clearMessages, errorText, onSubmit, setError, setStatus } from '../lib/form.js';
import { t } from '../lib/i18n.js';
import { passkeyFailure } from '../lib/passkey-support.js';
import { startRegistration } from '../vendor/simplewebauthn/index.js';
import { askForProof, type Reauth } from './reauth.js';
import { clearInputs, inputValue, showMappedErrors } from './security-form.js';
import { toLogin } from './user.js';

/** One passkey as user/passkeys lists it. */
interface Passkey {
  id: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
}

type CreationOptions = Parameters<typeof startRegistration>[0]['optionsJSON'];

const button = (label: string, onClick: () => void): HTMLButtonElement => {
  const element = document.createElement('button');
  element.type = 'button';
  element.className = 'small';
  element.textContent = label;
  element.addEventListener('click', onClick);
  return element;
};

/**
 * The user's passkeys: listed (textContent only: a name is whatever the user or their User-Agent gave),
 * renamed in place, removed (with the owner's proof, as the API asks), and added: the proof buys creation
 * options, the browser makes the credential, the API stores it.
 */
export function passkeysSection(reauth: Reauth): { load(): Promise<void> } {
  const list = document.getElementById('passkeys') as HTMLUListElement;
  const empty = document.getElementById('no-passkeys') as HTMLElement;
  const form = document.getElementById('passkey-add') as HTMLFormElement;

  function item(passkey: Passkey): HTMLLIElement {
    const row = document.createElement('li');
    const text = document.createElement('div');
    text.className = 'session-text';
    const name = document.createElement('strong');
    name.className = 'device';
    name.textContent = passkey.name;
    const details = document.createElement('span');
    details.className = 'meta';
    details.textContent = `${t('profile.added')} ${when(passkey.created_at)} · ${t('profile.last_used')} ${when(passkey.last_used_at)}`;
    text.append(name, details);
    const rename = button(t('action.rename'), () => startRename(row, text, passkey));
    rename.setAttribute('aria-label', `${t('action.rename')}: ${passkey.name}`);
    const remove = button(t('action.remove'), () => void removePasskey(passkey));
    remove.setAttribute('aria-label', `${t('action.remove')}: ${passkey.name}`);
    const actions = document.createElement('span');
    actions.className = 'row-actions';
    actions.append(rename, remove);
    row.append(text, actions);
    return row;
  }

  function startRename(row: HTMLLIElement, text: HTMLElement, passkey: Passkey): void {
    const input = document.createElement('input');
    input.value = passkey.name;
    input.maxLength = 64;
    input.setAttribute('aria-label', t('security.rename_prompt'));
    const save = button(t('action.save'), () => void rename(passkey, input.value));
    input.addEventListener('keydown', (event) => {
      if (event.key === 'Enter') void rename(passkey, input.value);
    });
    text.replaceChildren(input);
    row.querySelector('.row-actions')?.replaceChildren(save);
    input.focus();
  }

  async function rename(passkey: Passkey, name: string): Promise<void> {
    clearMessages(form);
    const answer = await api(`/user/passkeys/${encodeURIComponent(passkey.id)}/rename`, {
      method: 'POST',
      body: { name },
    });
    if (answer.status === 401) return toLogin();
    if (answer.status === 422) showMappedErrors(form, answer.body.data, {});
    else if (answer.status !== 200) setError(form, errorText(answer));
    else setStatus(form, t('status.passkey_renamed'));
    await load();
  }

  async function removePasskey(passkey: Passkey): Promise<void> {
    clearMessages(form);
    const proof = await reauth.proof();
    if (!proof) return askForProof(form);
    const answer = await api(`/user/passkeys/${encodeURIComponent(passkey.id)}/remove`, {
      method: 'POST',
      body: proof,
    });
    if (answer.status === 401) return toLogin();
    if (answer.status === 422) return refusedBy(answer.body.data, () => void removePasskey(passkey));
    if (answer.status !== 200) return setError(form, errorText(answer));
    setStatus(form, t('status.passkey_removed'));
    await load();
  }

  /**
   * A 422 about the proof goes to the confirmation panel (which sends the request again once confirmed), any
   * other beside the card's fields.
   */
  function refusedBy(data: Record<string, unknown>, retry: () => void): void {
    const aboutProof = reauth.refused(data, { retry });
    if (aboutProof) setError(form, aboutProof);
    else showMappedErrors(form, data, { name: 'passkey_name' });
  }

  async function load(): Promise<void> {
    const answer = await api<{ passkeys: Passkey[] }>('/user/passkeys');
    if (answer.status === 401) return toLogin();
    if (answer.status !== 200) return setError(form, errorText(answer));
    list.replaceChildren(...answer.body.data.passkeys.map(item));
    empty.hidden = answer.body.data.passkeys.length > 0;
  }

  onSubmit(form, async () => {
    clearMessages(form);
    const proof = await reauth.proof();
    if (!proof) {
      reauth.resume(() => form.requestSubmit());
      return askForProof(form);
    }
    setStatus(form, t('status.working'));
    const options = await api<{ options: CreationOptions }>('/user/passkeys/options', {
      method: 'POST',
      body: proof,
    });
    setStatus(form, '');
    if (options.status === 401) return toLogin();
    if (options.status === 422) return refusedBy(options.body.data, () => form.requestSubmit());
    if (options.status !== 200) return setError(form, errorText(options));
    let response: Awaited<ReturnType<typeof startRegistration>>;
    try {
      response = await startRegistration({ optionsJSON: options.body.data.options });
    } catch (error) {
      return setError(form, passkeyFailure(error, t('error.passkey_cancelled')));
    }
    const name = inputValue('passkey_name').trim();
    const added = await api('/user/passkeys/add', {
      method: 'POST',
      body: { response, ...(name ? { name } : {}) },
    });
    if (added.status === 422) return showMappedErrors(form, added.body.data, { name: 'passkey_name' });
    if (added.status !== 200) return setError(form, errorText(added));
    clearInputs('passkey_name');
    setStatus(form, t('status.passkey_added'));
    await load();
  });

  return { load };
}
