import type { ImageFormat } from './probe.js';
import { RenderPool, type RenderPoolOptions, RenderRefusedError } from './render-pool.js';

/** The longest side of the stored full-size picture (render-worker.mjs holds the same number). */
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

/** How images are rendered when nothing configured it (one child, a short queue): tests and tools. */
const DEFAULT_RENDERING: RenderPoolOptions = { workers: 1, queueLimit: 8, timeoutMs: 30_000, heapMb: 64 };

let pool: RenderPool | undefined;
let options = DEFAULT_RENDERING;
/** Children that have rendered an image, by pid (what the isolation test checks: never this process). */
const renderers = new Set<number>();

/** Sets the renderer pool's size and bounds (IMAGE_WORKERS, IMAGE_QUEUE_LIMIT, …); applies to the next pool. */
export function configureImageRendering(next: RenderPoolOptions): void {
  options = next;
}

/** Stops the renderer processes (the service's shutdown); the next render starts a new pool. */
export async function closeImageRendering(): Promise<void> {
  const closing = pool;
  pool = undefined;
  await closing?.close();
}

/** The pids of the renderer processes running now (one may be killed from outside to test a crash). */
export function runningImageRendererPids(): number[] {
  return pool?.pids() ?? [];
}

/** The pids of the processes that rendered images so far. */
export function imageRendererPids(): number[] {
  return [...renderers];
}

/**
 * Decodes the whole image and writes it anew: the full-size picture (at most FULL_SIZE_MAX on its longest
 * side, in its own format) and square thumbnails. Nothing of the input survives but its pixels: EXIF (GPS
 * included), comments, ICC profiles and anything appended after the image data are all left behind.
 *
 * The work runs in a separate process of a bounded pool (render-pool.ts, render-worker.mjs): decoding never
 * shares a thread pool with password hashing, and a burst of uploads waits in a short queue (503 past it)
 * instead of taking the API's CPU and memory. Every decode is bounded by `maxPixels` (`limitInputPixels`);
 * truncated or corrupt data is refused (`failOn: 'error'`). An animated GIF stays animated only when all its
 * frames together are small (a few megapixels); otherwise its first frame is kept. Thumbnails always show
 * the first frame.
 */
export async function renderProfilePicture(source: SourceImage, maxPixels: number): Promise<Rendition[]> {
  pool ??= new RenderPool(options);
  try {
    const { renditions, pid } = await pool.run(source, maxPixels);
    renderers.add(pid);
    return (renditions as Rendition[]).map((rendition) => ({
      ...rendition,
      data: Buffer.from(rendition.data.buffer, rendition.data.byteOffset, rendition.data.byteLength),
    }));
  } catch (error) {
    if (error instanceof RenderRefusedError) throw new UndecodableImageError(error);
    throw error;
  }
}
