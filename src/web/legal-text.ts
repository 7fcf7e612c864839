import { escapeHtml } from './html.js';

/**
 * A consent document's text as HTML. The text is plain: paragraphs apart by a blank line (a single line
 * break stays a line break), a line `## Heading` (or `# `) a heading, `### ` a smaller one, lines `- item`
 * (or `* `) a list. Everything is escaped: what an operator or a database holds is text on the page, never
 * markup, so a document cannot carry script, styles or links into the page.
 */
export function documentHtml(text: string): string {
  const html: string[] = [];
  let paragraph: string[] = [];
  let list: string[] = [];
  const flush = () => {
    if (paragraph.length > 0) html.push(`<p>${paragraph.map(escapeHtml).join('<br>\n')}</p>`);
    if (list.length > 0)
      html.push(`<ul>\n${list.map((item) => `<li>${escapeHtml(item)}</li>`).join('\n')}\n</ul>`);
    paragraph = [];
    list = [];
  };
  for (const raw of text.replace(/\r\n?/g, '\n').split('\n')) {
    const line = raw.trim();
    const heading = /^(#{1,3})\s+(.+)$/.exec(line);
    const item = /^[-*]\s+(.+)$/.exec(line);
    if (line === '') {
      flush();
    } else if (heading) {
      flush();
      const level = heading[1] === '###' ? 3 : 2;
      html.push(`<h${level}>${escapeHtml(heading[2] ?? '')}</h${level}>`);
    } else if (item) {
      if (paragraph.length > 0) flush();
      list.push(item[1] ?? '');
    } else {
      if (list.length > 0) flush();
      paragraph.push(line);
    }
  }
  flush();
  return html.join('\n');
}
