/** A time from the API (ISO 8601) in the page's language; `–` for none. */
export function when(iso: string | null | undefined): string {
  return iso
    ? new Date(iso).toLocaleString(document.documentElement.lang, { dateStyle: 'medium', timeStyle: 'short' })
    : '–';
}
