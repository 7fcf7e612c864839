import { createRequire } from 'node:module';
import type { Readable } from 'node:stream';
import type * as S3 from '@aws-sdk/client-s3';
import type * as Presigner from '@aws-sdk/s3-request-presigner';
import type { MediaConfig } from '../config.js';
import {
  MEDIA_CACHE_CONTROL,
  MEDIA_KEY_PATTERN,
  type MediaStorage,
  type StoredFile,
} from './media-storage.js';

export type S3StorageOptions = Omit<Extract<MediaConfig, { driver: 's3' }>, 'driver'>;

/** One retry: a blip is absorbed, and a stalled store costs a request at most twice S3_TIMEOUT_MS. */
const S3_MAX_ATTEMPTS = 2;

/**
 * The AWS SDK, loaded when the first S3Storage is made: a service on local media never holds its ~20 MB
 * in memory. Synchronous (the SDK ships CommonJS), so making a storage stays synchronous.
 */
let sdk: typeof S3 | undefined;
function loadSdk(): typeof S3 {
  sdk ??= createRequire(import.meta.url)('@aws-sdk/client-s3') as typeof S3;
  return sdk;
}

/** The presigner, loaded the first time a link is signed (as the SDK: only a service on S3 pays for it). */
let presigner: typeof Presigner | undefined;
function loadPresigner(): typeof Presigner {
  presigner ??= createRequire(import.meta.url)('@aws-sdk/s3-request-presigner') as typeof Presigner;
  return presigner;
}

/** How a presigned download is answered: the file name and type the store sends with the object. */
export interface PresignedDownload {
  expiresInSeconds: number;
  filename: string;
  contentType: string;
}

/** S3 or any S3-compatible store (MinIO, R2, …) through the official AWS SDK. */
export class S3Storage implements MediaStorage {
  readonly kind = 's3';
  readonly client: S3.S3Client;
  private readonly sdk = loadSdk();

  constructor(private readonly options: S3StorageOptions) {
    this.client = new this.sdk.S3Client({
      region: options.region,
      forcePathStyle: options.forcePathStyle,
      ...(options.endpoint ? { endpoint: options.endpoint } : {}),
      // Without explicit keys the SDK's default chain applies (environment, instance role, …).
      ...(options.credentials ? { credentials: options.credentials } : {}),
      // Checksums only where S3 requires them: many S3-compatible stores reject the newer default ones.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      // Every wait on the store is bounded (S3_TIMEOUT_MS): the connection, and each request with its answer.
      // A stalled store then fails the upload with a 503 instead of holding the request; with the SDK's
      // retries a request waits at most about maxAttempts × the timeout.
      requestHandler: {
        connectionTimeout: options.timeoutMs,
        requestTimeout: options.timeoutMs,
        throwOnRequestTimeout: true,
      },
      maxAttempts: S3_MAX_ATTEMPTS,
    });
  }

  async put(key: string, data: Buffer, contentType: string): Promise<void> {
    await this.client.send(
      new this.sdk.PutObjectCommand({
        Bucket: this.options.bucket,
        Key: key,
        Body: data,
        ContentType: contentType,
        CacheControl: MEDIA_CACHE_CONTROL,
      }),
    );
  }

  /**
   * Writes an object from a stream of known length (a data export's zip, read from its file): never held
   * in memory. Private (no public cache header): it is served only through its download link.
   */
  async putStream(key: string, body: Readable, length: number, contentType: string): Promise<void> {
    await this.client.send(
      new this.sdk.PutObjectCommand({
        Bucket: this.options.bucket,
        Key: key,
        Body: body,
        ContentLength: length,
        ContentType: contentType,
        CacheControl: 'private, no-store',
      }),
    );
  }

  async read(key: string): Promise<Readable | undefined> {
    return (await this.readWithSize(key))?.stream;
  }

  /** The object as a stream and its length; undefined when there is no such object. */
  async readWithSize(key: string): Promise<{ stream: Readable; size: number } | undefined> {
    try {
      const object = await this.client.send(
        new this.sdk.GetObjectCommand({ Bucket: this.options.bucket, Key: key }),
      );
      // On Node the SDK's body is the HTTP response stream: read as it arrives, never buffered whole.
      if (!object.Body) return undefined;
      return { stream: object.Body as Readable, size: object.ContentLength ?? 0 };
    } catch (error) {
      if ((error as { name?: unknown }).name === 'NoSuchKey') return undefined;
      throw error;
    }
  }

  /** Whether the object exists (a HEAD request). */
  async exists(key: string): Promise<boolean> {
    try {
      await this.client.send(new this.sdk.HeadObjectCommand({ Bucket: this.options.bucket, Key: key }));
      return true;
    } catch (error) {
      const { name, $metadata } = error as { name?: unknown; $metadata?: { httpStatusCode?: number } };
      if (name === 'NotFound' || name === 'NoSuchKey' || $metadata?.httpStatusCode === 404) return false;
      throw error;
    }
  }

  /**
   * A URL that GETs the object without credentials until it expires (SigV4 query signing, computed locally:
   * no request to the store). The store answers it with `download`'s file name and type.
   */
  async presignedGetUrl(key: string, download: PresignedDownload): Promise<string> {
    const command = new this.sdk.GetObjectCommand({
      Bucket: this.options.bucket,
      Key: key,
      ResponseContentDisposition: `attachment; filename="${download.filename}"`,
      ResponseContentType: download.contentType,
      ResponseCacheControl: 'private, no-store',
    });
    return loadPresigner().getSignedUrl(this.client, command, { expiresIn: download.expiresInSeconds });
  }

  async delete(keys: readonly string[]): Promise<void> {
    // One request per key: DeleteObjects needs a Content-MD5 some compatible stores do not accept, and a
    // profile picture has three files.
    await Promise.all(
      keys.map((key) =>
        this.client.send(new this.sdk.DeleteObjectCommand({ Bucket: this.options.bucket, Key: key })),
      ),
    );
  }

  /** Every object of the bucket with its age, a page (1,000 keys) at a time (ListObjectsV2). */
  async *files(): AsyncGenerator<StoredFile> {
    let continuationToken: string | undefined;
    do {
      const page = await this.client.send(
        new this.sdk.ListObjectsV2Command({
          Bucket: this.options.bucket,
          ContinuationToken: continuationToken,
        }),
      );
      for (const object of page.Contents ?? []) {
        if (object.Key === undefined || object.LastModified === undefined) continue;
        const key = MEDIA_KEY_PATTERN.test(object.Key) ? object.Key : undefined;
        // A PUT is atomic on S3: there are no partial objects to find.
        yield { key, partial: false, path: object.Key, modified: object.LastModified };
      }
      continuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (continuationToken !== undefined);
  }

  /** Never called for S3 (no partial objects); removes the object of that name. */
  async removeFile(name: string): Promise<void> {
    await this.client.send(new this.sdk.DeleteObjectCommand({ Bucket: this.options.bucket, Key: name }));
  }

  url(key: string): string {
    return `${this.options.publicBaseUrl}/${key}`;
  }

  close(): void {
    this.client.destroy();
  }
}
