import type sharp from 'sharp';
import type { UploadedFile } from '../../validation/types.js';

export type ImageFormat = 'jpeg' | 'png' | 'gif';

export const ACCEPTED_FORMATS: readonly ImageFormat[] = ['jpeg', 'png', 'gif'];

export type ProbeResult =
  | { ok: true; format: ImageFormat; width: number; height: number; pages: number }
  | { ok: false; reason: 'not_an_image' | 'wrong_type' | 'too_many_pixels' };

/** What the header of an accepted image said. */
export type AcceptedImage = Extract<ProbeResult, { ok: true }>;

/**
 * An uploaded image that passed the image rule, with what its header said: the service renders it without
 * reading the header again.
 */
export interface ValidatedImage {
  file: UploadedFile;
  probe: AcceptedImage;
}

/**
 * What a file really is, judged by its bytes alone (never its name or declared type). Reads only the
 * header: a pixel bomb (a tiny file declaring 50,000 × 50,000) is refused here, before any pixel is decoded.
 */
export async function probeImage(data: Buffer, maxPixels: number): Promise<ProbeResult> {
  // Loaded at the first upload, not at start: most processes never see an image (lower idle memory).
  const { default: load } = await import('sharp');
  let metadata: sharp.Metadata;
  try {
    metadata = await load(data, { limitInputPixels: false }).metadata();
  } catch {
    return { ok: false, reason: 'not_an_image' };
  }
  const format = metadata.format as string | undefined;
  const { width, height } = metadata;
  if (!format || !width || !height) return { ok: false, reason: 'not_an_image' };
  if (!ACCEPTED_FORMATS.includes(format as ImageFormat)) return { ok: false, reason: 'wrong_type' };
  if (width * height > maxPixels) return { ok: false, reason: 'too_many_pixels' };
  return { ok: true, format: format as ImageFormat, width, height, pages: metadata.pages ?? 1 };
}
