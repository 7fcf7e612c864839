import type { MediaConfig } from '../config/media.js';

/** The origin profile pictures come from when it is not this service's own (the pages' CSP must allow it). */
export function mediaOrigin(media: MediaConfig): string | undefined {
  const base = media.driver === 's3' ? media.publicBaseUrl : media.baseUrl;
  if (base.startsWith('/')) return undefined;
  try {
    return new URL(base).origin;
  } catch {
    return undefined;
  }
}
