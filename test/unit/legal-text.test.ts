import { describe, expect, it } from 'vitest';
import { documentHtml } from '../../src/web/legal-text.js';

describe('documentHtml', () => {
  it('makes paragraphs, line breaks, headings and lists of plain text', () => {
    const text = [
      'A starter.',
      '',
      '## Items',
      '- email',
      '* gender',
      'After the list.',
      'Same paragraph.',
      '',
      '### Small',
      '# Big',
    ].join('\r\n');
    expect(documentHtml(text)).toBe(
      [
        '<p>A starter.</p>',
        '<h2>Items</h2>',
        '<ul>\n<li>email</li>\n<li>gender</li>\n</ul>',
        '<p>After the list.<br>\nSame paragraph.</p>',
        '<h3>Small</h3>',
        '<h2>Big</h2>',
      ].join('\n'),
    );
  });

  it('escapes everything: markup in a text is text', () => {
    expect(documentHtml('<script>alert(1)</script> & "x" \'y\'')).toBe(
      '<p>&#60;script&#62;alert(1)&#60;/script&#62; &#38; &#34;x&#34; &#39;y&#39;</p>',
    );
    expect(documentHtml('## <b>h</b>\n- <i>i</i>')).toBe(
      '<h2>&#60;b&#62;h&#60;/b&#62;</h2>\n<ul>\n<li>&#60;i&#62;i&#60;/i&#62;</li>\n</ul>',
    );
  });

  it('makes nothing of an empty text, and a paragraph of a lone marker', () => {
    expect(documentHtml('')).toBe('');
    expect(documentHtml('\n\n  \n')).toBe('');
    expect(documentHtml('##\n-')).toBe('<p>##<br>\n-</p>');
  });
});
