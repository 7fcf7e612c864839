import { describe, expect, it } from 'vitest';
import { hugePagesWarning, selectedHugePageMode } from '../../src/lib/huge-pages.js';

describe('transparent huge pages', () => {
  it('reads the bracketed mode of the kernel setting', () => {
    expect(selectedHugePageMode('always [madvise] never\n')).toBe('madvise');
    expect(selectedHugePageMode('[always] madvise never\n')).toBe('always');
    expect(selectedHugePageMode('always madvise [never]\n')).toBe('never');
    expect(selectedHugePageMode('')).toBeUndefined();
  });

  it('warns the operator only when they are off', () => {
    const host = (setting: string) => (path: string) => {
      expect(path).toBe('/sys/kernel/mm/transparent_hugepage/enabled');
      return setting;
    };
    expect(hugePagesWarning(host('always madvise [never]\n'))).toMatch(
      /^transparent huge pages are off on this host \(never\): .*docs\/DEPLOY\.md/,
    );
    expect(hugePagesWarning(host('always [madvise] never\n'))).toBeUndefined();
    expect(hugePagesWarning(host('[always] madvise never\n'))).toBeUndefined();
  });

  it('says nothing where the setting cannot be read (not Linux, no huge pages)', () => {
    const missing = () => {
      throw Object.assign(new Error('ENOENT'), { code: 'ENOENT' });
    };
    expect(hugePagesWarning(missing)).toBeUndefined();
  });
});
