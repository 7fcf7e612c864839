import sharp from 'sharp';
import type { ImageFormat } from './probe.js';

/** The longest side of the stored full-size picture: a profile picture needs no more, phones send 12 MP. */
export const FULL_SIZE_MAX = 2048;

/** Square thumbnails, cropped to fill (avatars are shown square). */
export const THUMBNAIL_SIZES = [256, 64] as const;

export interface Rendition {
  /** `full` or the thumbnail size. */
  name: string;
  data: Buffer;
  extension: 'jpg' | 'png' | 'gif';
  contentType: string;
  width: number;
  height: number;
}

/** The image could be probed but not decoded (truncated, corrupt): for the client, not an image. */
export class UndecodableImageError extends Error {
  constructor(cause: unknown) {
    super('image could not be decoded', { cause });
    this.name = 'UndecodableImageError';
  }
}

export interface SourceImage {
  data: Buffer;
  format: ImageFormat;
  width: number;
  height: number;
  pages: number;
}

function encode(pipeline: sharp.Sharp, format: ImageFormat): sharp.Sharp {
  if (format === 'jpeg') return pipeline.jpeg({ quality: 85, mozjpeg: true });
  if (format === 'gif') return pipeline.gif();
  return pipeline.png({ compressionLevel: 9 });
}

const EXTENSIONS: Record<ImageFormat, Rendition['extension']> = { jpeg: 'jpg', png: 'png', gif: 'gif' };

async function render(pipeline: sharp.Sharp, format: ImageFormat, name: string): Promise<Rendition> {
  const { data, info } = await encode(pipeline, format).toBuffer({ resolveWithObject: true });
  return {
    name,
    data,
    extension: EXTENSIONS[format],
    contentType: `image/${format}`,
    width: info.width,
    // An animated output reports the height of all frames stacked; a client wants one frame's.
    height: info.pageHeight ?? info.height,
  };
}

/**
 * Decodes the whole image and writes it anew: the full-size picture (at most FULL_SIZE_MAX on its longest
 * side, in its own format) and square thumbnails. Nothing of the input survives but its pixels: EXIF (GPS
 * included), comments, ICC profiles and anything appended after the image data are all left behind.
 *
 * Every decode is bounded by `maxPixels` (`limitInputPixels`), so even a file that slipped past the header
 * probe cannot make libvips allocate more. `failOn: 'error'` refuses truncated and corrupt data instead of
 * quietly filling the missing part with grey, while tolerating the harmless warnings many cameras produce.
 * An animated GIF stays animated when all its frames together fit the pixel limit (else its first frame is
 * kept); thumbnails always show the first frame.
 */
export async function renderProfilePicture(source: SourceImage, maxPixels: number): Promise<Rendition[]> {
  const animated =
    source.format === 'gif' && source.pages > 1 && source.width * source.height * source.pages <= maxPixels;
  const options: sharp.SharpOptions = { limitInputPixels: maxPixels, failOn: 'error', animated };
  try {
    // rotate() applies the EXIF orientation to the pixels before the EXIF is dropped.
    const full = await render(
      sharp(source.data, options)
        .rotate()
        .resize({ width: FULL_SIZE_MAX, height: FULL_SIZE_MAX, fit: 'inside', withoutEnlargement: true }),
      source.format,
      'full',
    );
    // Thumbnails come from the re-encoded picture (already upright and small); its first frame for a GIF,
    // stored as PNG so transparency survives.
    const thumbnailFormat: ImageFormat = source.format === 'gif' ? 'png' : source.format;
    const thumbnails = await Promise.all(
      THUMBNAIL_SIZES.map((size) =>
        render(
          sharp(full.data, { limitInputPixels: maxPixels, failOn: 'error' }).resize(size, size, {
            fit: 'cover',
          }),
          thumbnailFormat,
          String(size),
        ),
      ),
    );
    return [full, ...thumbnails];
  } catch (error) {
    throw new UndecodableImageError(error);
  }
}
