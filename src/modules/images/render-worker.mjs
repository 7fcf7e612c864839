// @ts-check
/**
 * The image renderer's child process (forked by render-pool.ts). Plain JavaScript, read from src/ in tests and
 * in the built service alike (like the SQL migrations), because a forked Node 20 cannot run TypeScript.
 *
 * Why a process and not a worker thread: libuv's threadpool is one per process and shared by every thread in
 * it, so sharp in a worker thread would still queue beside argon2 (and every fs call) on the same four
 * threads. A child process has its own threadpool, its own heap limit and its own libvips cache: decoding an
 * image can slow nothing of the API's but the CPU it is given.
 */
import sharp from 'sharp';
import { lowerPriority, WORKER_NICE } from '../../lib/lower-priority.cjs';

// Decoding yields the cores to the API's event loop, as hashing does, and neither outranks the other: at
// nice 0 a burst of uploads would hold the cores the logins' hashing needs (test/integration/image-isolation).
lowerPriority(WORKER_NICE);

// One libvips thread per operation and no operation cache: memory stays near one image's worth.
sharp.concurrency(1);
sharp.cache(false);

/** The longest side of the stored full-size picture: a profile picture needs no more, phones send 12 MP. */
const FULL_SIZE_MAX = 2048;
/** Square thumbnails, cropped to fill (avatars are shown square). */
const THUMBNAIL_SIZES = [256, 64];
/**
 * An animated GIF stays animated only while all its frames together stay under this many pixels: decoding
 * every frame of a 2000 × 2000 × 9 GIF costs seconds of CPU and hundreds of MB; its first frame costs little.
 */
const ANIMATION_MAX_PIXELS = 4_000_000;
const EXTENSIONS = { jpeg: 'jpg', png: 'png', gif: 'gif' };

/** @param {import('sharp').Sharp} pipeline @param {'jpeg'|'png'|'gif'} format */
function encode(pipeline, format) {
  if (format === 'jpeg') return pipeline.jpeg({ quality: 85, mozjpeg: true });
  if (format === 'gif') return pipeline.gif();
  return pipeline.png({ compressionLevel: 9 });
}

/** @param {import('sharp').Sharp} pipeline @param {'jpeg'|'png'|'gif'} format @param {string} name */
async function render(pipeline, format, name) {
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
 * Decodes the whole image and writes it anew (see process.ts for what survives: only pixels).
 * @param {{ data: Uint8Array, format: 'jpeg'|'png'|'gif', width: number, height: number, pages: number }} source
 * @param {number} maxPixels
 */
async function renderProfilePicture(source, maxPixels) {
  const data = Buffer.from(source.data.buffer, source.data.byteOffset, source.data.byteLength);
  const frames = source.width * source.height * source.pages;
  const animated =
    source.format === 'gif' && source.pages > 1 && frames <= Math.min(maxPixels, ANIMATION_MAX_PIXELS);
  /** @type {import('sharp').SharpOptions} */
  const options = { limitInputPixels: maxPixels, failOn: 'error', animated };
  // rotate() applies the EXIF orientation to the pixels before the EXIF is dropped.
  const full = await render(
    sharp(data, options)
      .rotate()
      .resize({ width: FULL_SIZE_MAX, height: FULL_SIZE_MAX, fit: 'inside', withoutEnlargement: true }),
    source.format,
    'full',
  );
  // Thumbnails come from the re-encoded picture (upright and small); its first frame for a GIF, stored as
  // PNG so transparency survives. One after the other: this process renders one image at a time.
  const thumbnailFormat = source.format === 'gif' ? 'png' : source.format;
  const renditions = [full];
  for (const size of THUMBNAIL_SIZES) {
    renditions.push(
      await render(
        sharp(full.data, { limitInputPixels: maxPixels, failOn: 'error' }).resize(size, size, {
          fit: 'cover',
        }),
        thumbnailFormat,
        String(size),
      ),
    );
  }
  return renditions;
}

process.on('message', (/** @type {{ id: number, source: any, maxPixels: number }} */ job) => {
  renderProfilePicture(job.source, job.maxPixels).then(
    (renditions) => process.send?.({ id: job.id, ok: true, renditions, pid: process.pid }),
    (error) =>
      process.send?.({
        id: job.id,
        ok: false,
        message: error instanceof Error ? error.message : String(error),
        pid: process.pid,
      }),
  );
});
// Told to stop, or the parent went away: nothing here is worth finishing.
process.on('disconnect', () => process.exit(0));
