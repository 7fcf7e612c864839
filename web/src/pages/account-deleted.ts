import { t } from '../lib/i18n.js';

/** `?on=` the erasure's date (a scheduled deletion), none when the account is already gone. */
const on = new URLSearchParams(location.search).get('on');
const date = on === null ? Number.NaN : Date.parse(on);
const scheduled = document.getElementById('deletion-scheduled') as HTMLElement;
if (Number.isFinite(date)) {
  const day = new Date(date).toLocaleDateString(document.documentElement.lang, { dateStyle: 'long' });
  (document.getElementById('deletion-date') as HTMLElement).textContent = t('deleted.scheduled').replace(
    '{date}',
    day,
  );
  scheduled.hidden = false;
} else (document.getElementById('deletion-done') as HTMLElement).hidden = false;
