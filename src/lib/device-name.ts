import Bowser from 'bowser';

/** A User-Agent longer than this is not parsed: no real client sends one, and parsing costs regex time. */
const MAX_USER_AGENT = 512;

const major = (version: string | undefined) => version?.split('.')[0] ?? '';

/**
 * A short, readable name for the client behind a User-Agent, such as `Chrome 120 · macOS Catalina` or
 * `Safari 17 · iPhone · iOS 17.4`, for lists a person reads (their sessions, their activity). The parts are
 * names and numbers only, joined by `·`, so the same text reads in every language. Undefined when the string
 * names nothing bowser knows (curl, a bare test client): the caller shows its own "unknown device".
 */
export function deviceName(userAgent: string | null | undefined): string | undefined {
  if (!userAgent || userAgent.length > MAX_USER_AGENT) return undefined;
  const { browser, os, platform } = Bowser.parse(userAgent);
  const parts = [
    [browser.name, major(browser.version)].filter(Boolean).join(' '),
    platform.model ?? '',
    [os.name, os.versionName ?? os.version].filter(Boolean).join(' '),
  ].filter((part) => part !== '');
  return parts.length === 0 ? undefined : parts.join(' · ');
}
