/** ISO 8601 UTC, the wire format of every timestamp (the drivers return Date; a string is parsed first). */
export function iso(value: Date | string): string {
  return (value instanceof Date ? value : new Date(value)).toISOString();
}
