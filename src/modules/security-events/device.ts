import Bowser from 'bowser';

/** What a user agent says about the device: a name for people, and a key for "seen before?". */
export interface DeviceInfo {
  /** "Chrome on macOS", "Safari on iPhone", "Accounts on Android", "curl", "Unknown device". */
  name: string;
  /**
   * The device family: browser (or app) · OS · platform type, lower-cased. Two sign-ins with the same key are
   * the same device as far as the new-device alert is concerned; a user agent nothing can be read from is
   * keyed by itself, and a missing one by `none`.
   */
  key: string;
}

const UNKNOWN_DEVICE = 'Unknown device';
/** Far above a real user agent; what is stored and parsed is cut here (a hostile client sends megabytes). */
export const MAX_USER_AGENT_LENGTH = 512;
/** An app's own product token, `Accounts/3.2.0 (iPhone; iOS 18.1)`: not a browser, so bowser's guess is not used. */
const APP_PRODUCT = /^([A-Za-z][A-Za-z0-9 ._-]{0,40}?)\/[0-9]/;

/** iPhone and iPad say more than "iOS"; every other device is named by its OS. */
function deviceOf(parsed: Bowser.Parser.ParsedResult): string | undefined {
  const model = parsed.platform.model;
  if (model === 'iPhone' || model === 'iPad') return model;
  return parsed.os.name || undefined;
}

export function describeDevice(userAgent: string | null | undefined): DeviceInfo {
  const agent = userAgent?.slice(0, MAX_USER_AGENT_LENGTH).trim();
  if (!agent) return { name: UNKNOWN_DEVICE, key: 'none' };
  const parsed = Bowser.parse(agent);
  // A browser's user agent starts with "Mozilla/"; anything else naming itself first is an app or a tool.
  const product = agent.startsWith('Mozilla/') ? undefined : APP_PRODUCT.exec(agent)?.[1];
  const program = product ?? (parsed.browser.name || undefined);
  const device = deviceOf(parsed);
  if (program === undefined && device === undefined) return { name: UNKNOWN_DEVICE, key: `ua:${agent}` };
  const name = program && device ? `${program} on ${device}` : (program ?? device ?? UNKNOWN_DEVICE);
  const key = [program ?? '', device ?? '', parsed.platform.type ?? ''].join('|').toLowerCase();
  return { name, key };
}
