/**
 * RFC 4180 CSV: every field quoted (a comma, quote or line break inside stays data), CRLF line ends. A cell
 * that a spreadsheet would read as a formula (`=`, `+`, `-`, `@`, tab, CR first) gets a leading `'`, so an
 * export opened in a spreadsheet never runs what a user typed (OWASP CSV injection).
 */
export function toCsv(lines: readonly (readonly string[])[]): string {
  return `${lines.map((cells) => cells.map(cell).join(',')).join('\r\n')}\r\n`;
}

function cell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return `"${safe.replace(/"/g, '""')}"`;
}
