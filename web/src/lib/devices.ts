import { t } from './i18n.js';

/**
 * A device name from the API in the page's language. The API writes names as "Chrome on Linux" (activity)
 * or "Chrome 120 · Linux", "Safari 17 · iPhone · iOS 17.4" (sessions): names and numbers with English
 * glue. The page rejoins the parts in its own word order ("Linux의 Chrome"); a name of one part is kept.
 */
export function deviceInWords(name: string | null | undefined): string {
  if (!name || name === 'Unknown device') return t('activity.unknown_device');
  const on = /^(.+) on (.+)$/.exec(name);
  const parts = on ? [on[1] ?? '', on[2] ?? ''] : name.split(' · ');
  const [browser, device, system] = parts;
  if (!browser || !device) return name;
  const where = system ? t('device.details').replace('{device}', device).replace('{system}', system) : device;
  return t('device.on').replace('{browser}', browser).replace('{device}', where);
}
