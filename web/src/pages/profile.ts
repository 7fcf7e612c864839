import { api, REAUTH_UNTIL_KEY } from '../lib/api.js';
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
profileSections((name, sensitive) => {
  open = { name, sensitive };
  showPanel();
});
pictureSection();
detailsSection(reauth, (changing) => {
  emailChanging = changing;
  showPanel();
});
identitySection();
passwordSection(reauth);
const sessions = sessionsSection();
const passkeys = passkeysSection(reauth);
const twoFactor = twoFactorSection(reauth);
const activity = activitySection();
const privacy = privacySection(activity.refresh);
const dataExport = dataExportSection(reauth, activity.refresh);
deletionSection(reauth);

const profileForm = document.getElementById('profile') as HTMLFormElement;

async function load(): Promise<void> {
  const answer = await api<{ user: User }>('/user/get');
  if (answer.status === 401) return toLogin();
  if (answer.status !== 200) return setError(profileForm, errorText(answer));
  showUser(answer.body.data.user);
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
