import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { printColumns } from '../../src/cli/output.js';
import type { Terminal } from '../../src/cli/terminal.js';

function printed(rows: string[][]): string[] {
  let out = '';
  const terminal: Terminal = {
    writeOut: (text) => {
      out += text;
    },
    writeErr: () => undefined,
  };
  printColumns(terminal, rows);
  return out.trimEnd().split('\n');
}

/** The terminal column where `text` starts in `line`. */
const columnOf = (line: string, text: string) => stringWidth(line.slice(0, line.indexOf(text)));

describe('operator tables', () => {
  it('line columns up by the width a terminal shows, Hangul and emoji two columns each', () => {
    const lines = printed([
      ['USERNAME', 'EMAIL', 'STATUS'],
      ['김민지', 'minji@example.com', 'shown'],
      ['kim', 'kim@example.com', 'disabled'],
      ['😀x', 'e@example.com', 'shown'],
    ]);
    expect(lines[1]).toBe('김민지    minji@example.com  shown');
    const starts = [
      ['EMAIL', 'STATUS'],
      ['minji@', 'shown'],
      ['kim@', 'disabled'],
      ['e@', 'shown'],
    ].map(([email, status], i) => [
      columnOf(lines[i] as string, email as string),
      columnOf(lines[i] as string, status as string),
    ]);
    expect(new Set(starts.map(([email]) => email))).toEqual(new Set([10]));
    expect(new Set(starts.map(([, status]) => status))).toEqual(new Set([29]));
  });

  it('leaves the last column unpadded', () => {
    expect(
      printed([
        ['a', '짧음'],
        ['bbb', '긴 값'],
      ]),
    ).toEqual(['a    짧음', 'bbb  긴 값']);
  });
});
