import { InvalidCredentialsError, ProviderUnavailableError } from '../errors.js';

/** A provider's answer is small JSON; anything bigger is not an answer we can trust. */
const MAX_BODY_BYTES = 1024 * 1024;

async function readCapped(response: Response): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel();
      throw new ProviderUnavailableError('response too large');
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * GETs a provider endpoint and returns its JSON, classifying every failure the way the error envelope needs:
 * - 400/401/403: the provider refuses the token → InvalidCredentialsError (401 authentication_failed);
 *   400 included because real providers answer an unknown or malformed token with it;
 * - any other non-2xx, a network error, a timeout, a redirect or a body that is not JSON → 502.
 * The token goes only in the Authorization header, so it never appears in a URL or an error message.
 */
export async function getProviderJson(
  url: string,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<unknown> {
  let response: Response;
  let text: string;
  try {
    response = await fetch(url, {
      method: 'GET',
      headers: { accept: 'application/json', ...headers },
      // A redirect would carry the bearer token to wherever the provider points; configure the final URL.
      redirect: 'error',
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (response.status === 400 || response.status === 401 || response.status === 403) {
      await response.body?.cancel();
      throw new InvalidCredentialsError();
    }
    if (response.status < 200 || response.status > 299) {
      await response.body?.cancel();
      throw new ProviderUnavailableError(`HTTP ${response.status} from ${new URL(url).host}`);
    }
    text = await readCapped(response);
  } catch (error) {
    if (error instanceof InvalidCredentialsError || error instanceof ProviderUnavailableError) throw error;
    const reason = (error as Error | undefined)?.name === 'TimeoutError' ? 'timed out' : 'unreachable';
    // Only the underlying network error is kept for the log: fetch's own message may quote a header value.
    throw new ProviderUnavailableError(
      `${new URL(url).host} ${reason}`,
      (error as { cause?: unknown }).cause,
    );
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ProviderUnavailableError(`${new URL(url).host} answered something that is not JSON`);
  }
}

/** The value at a dot path (`id`, `response.id`), or undefined when any step is missing. */
export function atPath(value: unknown, path: string): unknown {
  let current = value;
  for (const key of path.split('.')) {
    if (current === null || typeof current !== 'object' || Array.isArray(current)) return undefined;
    if (!Object.hasOwn(current, key)) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/** An id as providers send it: a string, or a number (some use numeric ids); anything else is no id. */
export function idString(value: unknown): string | undefined {
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  return undefined;
}
