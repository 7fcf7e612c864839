import { api, changeCount, REAUTH_UNTIL_KEY } from '../lib/api.js';
import { errorText, onSubmit, setError } from '../lib/form.js';
import { t } from '../lib/i18n.js';
import { revealButtons } from '../lib/password-field.js';
import { activitySection } from '../profile/activity.js';
import { dataExportSection } from '../profile/data-export.js';
import { deletionSection } from '../profile/deletion.js';
import { detailsSection } from '../profile/details.js';
import { identitySection } from '../profile/identity.js';
import { passkeysSection } from '../profile/passkeys.js';
import { passwordSection } from '../profile/password.js';
import { phoneSection } from '../profile/phone.js';
import { pictureSection } from '../profile/picture.js';
import { privacySection } from '../profile/privacy.js';
import { reauthPanel } from '../profile/reauth.js';
import { profileSections } from '../profile/sections.js';
import { sessionsSection } from '../profile/sessions.js';
import { twoFactorSection } from '../profile/two-factor.js';
import { showUser, toLogin, type User } from '../profile/user.js';

// One module per card of the page (src/web/page-profile.ts builds their HTML, in the same order).
revealButtons();
const reauth = reauthPanel();
// The confirmation panel shows above the sensitive sections, and above the details while the email changes.
let open = { name: '', sensitive: false };
let emailChanging = false;
const showPanel = () => reauth.show(open.sensitive || (open.name === 'details' && emailChanging));
/** Each section's data as of the number of changes the page had made when it was last read. */
const readAt = new Map<string, number>();
profileSections((name, sensitive) => {
  open = { name, sensitive };
  showPanel();
  // A section shown after a change elsewhere (a new password, 2FA turned on, a passkey added) reads its
  // data again: the activity, the sign-in methods and the lists would otherwise show the page's first load.
  const seen = readAt.get(name);
  if (seen === undefined || seen === changeCount()) return;
  readAt.set(name, changeCount());
  reloadSection(name).catch(() => setError(profileForm, t('error.network')));
});
pictureSection();
detailsSection(reauth, (changing) => {
  emailChanging = changing;
  showPanel();
});
identitySection();
passwordSection(reauth);
// The mobile number's card is there only where codes can be texted.
if (document.getElementById('phone-add')) phoneSection(reauth);
const sessions = sessionsSection();
const passkeys = passkeysSection(reauth);
const twoFactor = twoFactorSection(reauth);
const activity = activitySection();
const privacy = privacySection(activity.refresh);
const dataExport = dataExportSection(reauth, activity.refresh);
deletionSection(reauth);

const profileForm = document.getElementById('profile') as HTMLFormElement;

async function loadUser(): Promise<boolean> {
  const answer = await api<{ user: User }>('/user/get');
  if (answer.status === 401) {
    toLogin();
    return false;
  }
  if (answer.status !== 200) {
    setError(profileForm, errorText(answer));
    return false;
  }
  showUser(answer.body.data.user);
  return true;
}

/** What each section reads (the account itself feeds the details, the password card and the 2FA card). */
const LOADERS: Record<string, ReadonlyArray<() => Promise<unknown>>> = {
  details: [loadUser],
  signin: [loadUser],
  security: [loadUser, twoFactor.load, passkeys.load],
  privacy: [privacy.load],
  activity: [sessions.load, activity.load],
  // The export card follows its own export (a second read would follow it twice).
  data: [],
};

async function reloadSection(name: string): Promise<void> {
  await Promise.all((LOADERS[name] ?? []).map((loader) => loader()));
}

async function load(): Promise<void> {
  const start = changeCount();
  if (!(await loadUser())) return;
  for (const name of Object.keys(LOADERS)) readAt.set(name, start);
  await Promise.all([
    sessions.load(),
    passkeys.load(),
    twoFactor.load(),
    privacy.load(),
    activity.load(),
    dataExport.load(),
  ]);
}

const signOut = document.getElementById('signout') as HTMLFormElement;
onSubmit(signOut, async () => {
  sessionStorage.removeItem(REAUTH_UNTIL_KEY);
  await api('/web/session/end', { method: 'POST' });
  location.assign('/login');
});

load().catch(() => setError(profileForm, t('error.network')));
