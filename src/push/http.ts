/** FCM and Google's token endpoint answer small JSON; more than this is not an answer we want to hold. */
const MAX_BODY_BYTES = 64 * 1024;

/**
 * The response body as JSON, or undefined when it is not JSON or too large (an error page from a proxy, say).
 * Reading stays under the request's AbortSignal, so a body that trickles in forever still ends at the timeout.
 */
export async function readJsonBody(response: Response): Promise<unknown> {
  const reader = response.body?.getReader();
  if (!reader) return undefined;
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/** Why a fetch threw, in words for an error message: fetch's own messages may quote headers, so never those. */
export function fetchFailure(error: unknown, what: string, timeoutMs: number): string {
  const name = (error as Error | undefined)?.name;
  if (name === 'TimeoutError' || name === 'AbortError')
    return `${what} did not answer within ${timeoutMs} ms.`;
  return `${what} could not be reached.`;
}
