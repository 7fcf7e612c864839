import { describe, expect, it } from 'vitest';
import { probeImage } from '../../src/modules/images/probe.js';
import { image, pngHeaderOnly } from '../helpers/image-formats.js';

const MAX = 40_000_000;

describe('probeImage', () => {
  it.each(['png', 'jpeg', 'gif'] as const)('accepts a %s and reads its size', async (format) => {
    expect(await probeImage(await image(format, 12, 7), MAX)).toEqual({
      ok: true,
      format,
      width: 12,
      height: 7,
      pages: 1,
    });
  });

  it.each(['webp', 'tiff'] as const)('refuses a real %s as the wrong type', async (format) => {
    expect(await probeImage(await image(format), MAX)).toEqual({ ok: false, reason: 'wrong_type' });
  });

  it.each([
    ['text', Buffer.from('this is not an image at all')],
    ['an empty file', Buffer.alloc(0)],
    ['a PNG signature and nothing else', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])],
    ['an SVG', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>')],
  ])('refuses %s as not an image', async (_name, data) => {
    const result = await probeImage(data, MAX);
    expect(result.ok).toBe(false);
    // SVG is an image to libvips but never one of ours; either refusal keeps it out.
    expect(['not_an_image', 'wrong_type']).toContain((result as { reason: string }).reason);
  });

  it('refuses a pixel bomb from its header alone', async () => {
    const bomb = pngHeaderOnly(50_000, 50_000);
    expect(bomb.length).toBeLessThan(100);
    expect(await probeImage(bomb, MAX)).toEqual({ ok: false, reason: 'too_many_pixels' });
  });

  it('allows exactly the pixel limit and refuses one pixel more', async () => {
    const data = await image('png', 10, 10);
    expect((await probeImage(data, 100)).ok).toBe(true);
    expect(await probeImage(data, 99)).toEqual({ ok: false, reason: 'too_many_pixels' });
  });
});
