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

/**
 * Renders profile pictures in its own pool of renderer processes: one per instance, made by the composition
 * root and closed with it, never shared by two instances of one process. The processes start on the first
 * render, so an instance that never renders starts none.
 */
export class ImageRenderer {
  private readonly pool: RenderPool;
  /** Children that have rendered an image, by pid (what the isolation test checks: never this process). */
  private readonly renderers = new Set<number>();

  /** The pool's size and bounds: IMAGE_WORKERS, IMAGE_QUEUE_LIMIT, IMAGE_TIMEOUT_MS, IMAGE_WORKER_HEAP_MB. */
  constructor(options: RenderPoolOptions) {
    this.pool = new RenderPool(options);
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
  async renderProfilePicture(source: SourceImage, maxPixels: number): Promise<Rendition[]> {
    try {
      const { renditions, pid } = await this.pool.run(source, maxPixels);
      this.renderers.add(pid);
      return (renditions as Rendition[]).map((rendition) => ({
        ...rendition,
        data: Buffer.from(rendition.data.buffer, rendition.data.byteOffset, rendition.data.byteLength),
      }));
    } catch (error) {
      if (error instanceof RenderRefusedError) throw new UndecodableImageError(error);
      throw error;
    }
  }

  /** The pids of the renderer processes running now (one may be killed from outside to test a crash). */
  runningPids(): number[] {
    return this.pool.pids();
  }

  /** The pids of the processes that rendered images so far. */
  renderedPids(): number[] {
    return [...this.renderers];
  }

  /** Stops the renderer processes (the instance's shutdown); renders in flight or waiting fail with a 503. */
  close(): Promise<void> {
    return this.pool.close();
  }
}
