import { randomBytes } from 'node:crypto';
import type { ProfilePicture } from '../../db/schema.js';
import { ServiceUnavailableError, ValidationError } from '../../errors.js';
import type { MediaStorage } from '../../storage/media-storage.js';
import type { UploadedFile } from '../../validation/types.js';
import { type ProbeResult, probeImage } from './probe.js';
import { type ImageRenderer, type Rendition, UndecodableImageError } from './process.js';

/** What the caller reports when a file could not be removed (the files are then orphans to clean by hand). */
export type CleanupFailureReporter = (keys: readonly string[], error: unknown) => void;

/** What decodes and re-encodes a picture: the instance's ImageRenderer (its pool of renderer processes). */
export type PictureRenderer = Pick<ImageRenderer, 'renderProfilePicture'>;

/**
 * Profile pictures: decoding, re-encoding and storing their files. It never touches the database; callers
 * write the returned `ProfilePicture` in their own transaction, through `withStoredPicture`, which removes the
 * files again if that transaction fails.
 */
export class ImagesService {
  constructor(
    private readonly storage: MediaStorage,
    private readonly renderer: PictureRenderer,
    private readonly maxPixels: number,
    private readonly reportCleanupFailure: CleanupFailureReporter = () => {},
  ) {}

  /**
   * Re-encodes the upload and writes its files. `probe` is what the image rule learned (it is probed again
   * when absent). A file that cannot be decoded is the same 422 as one that is not an image at all.
   */
  async store(
    field: string,
    upload: UploadedFile,
    probe?: ProbeResult,
    /** The storage folder of the files (post images live apart from profile pictures). */
    folder = 'profile-pictures',
  ): Promise<ProfilePicture> {
    const known = probe ?? (await probeImage(upload.data, this.maxPixels));
    if (!known.ok) throw new ValidationError({ [field]: [{ rule: 'image' }] });
    let renditions: Rendition[];
    try {
      renditions = await this.renderer.renderProfilePicture({ data: upload.data, ...known }, this.maxPixels);
    } catch (error) {
      if (error instanceof UndecodableImageError) throw new ValidationError({ [field]: [{ rule: 'image' }] });
      throw error;
    }
    // 128 random bits: a picture's URL cannot be guessed from a user id or another picture's URL.
    const name = randomBytes(16).toString('base64url');
    const files = renditions.map((rendition) => ({
      ...rendition,
      key: `${folder}/${name}${rendition.name === 'full' ? '' : `_${rendition.name}`}.${rendition.extension}`,
    }));
    // Settled, not all: when one write fails, the others must have finished before they are removed.
    const results = await Promise.allSettled(
      files.map((file) => this.storage.put(file.key, file.data, file.contentType)),
    );
    const failed = results.find((result) => result.status === 'rejected');
    if (failed) {
      await this.remove(files.map((file) => file.key));
      // The storage is a dependency we own: its outage is a 503 the client may retry.
      throw new ServiceUnavailableError(failed.reason);
    }
    const [full, ...thumbnails] = files;
    if (!full) throw new Error('no full-size rendition');
    return {
      url: this.storage.url(full.key),
      width: full.width,
      height: full.height,
      thumbnails: Object.fromEntries(thumbnails.map((file) => [file.name, this.storage.url(file.key)])),
      keys: files.map((file) => file.key),
    };
  }

  /**
   * Stores the picture (when there is one), runs `work` with it, and removes its files if `work` fails: the
   * files are written before the transaction, so a failed transaction must not leave them behind.
   */
  async withStoredPicture<T>(
    upload: { field: string; file: UploadedFile; probe?: ProbeResult | undefined } | undefined,
    work: (picture: ProfilePicture | undefined) => Promise<T>,
  ): Promise<T> {
    const picture = upload ? await this.store(upload.field, upload.file, upload.probe) : undefined;
    try {
      return await work(picture);
    } catch (error) {
      if (picture) await this.removePicture(picture);
      throw error;
    }
  }

  /** Removes a picture's files, e.g. the one a new picture replaced (after the new one committed). */
  async removePicture(picture: ProfilePicture | null | undefined): Promise<void> {
    await this.remove(picture?.keys ?? []);
  }

  /**
   * Best effort: the request's outcome does not depend on it (the database is already right); a failure is
   * reported so the files can be found and removed later.
   */
  private async remove(keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return;
    try {
      await this.storage.delete(keys);
    } catch (error) {
      this.reportCleanupFailure(keys, error);
    }
  }
}
