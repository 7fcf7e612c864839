import path from 'node:path';
import { boolean, ConfigError, type Env, httpUrl, integer, raw } from './env.js';

/**
 * Image storage: local files under `DATA_DIR/media` served at `/media/*` (zero setup), or S3-compatible
 * object storage when `S3_BUCKET` is set (what a scaled-out deployment uses: every instance sees every file).
 */
export type MediaConfig =
  | { driver: 'local'; dir: string; baseUrl: string }
  | {
      driver: 's3';
      bucket: string;
      region: string;
      endpoint: string | undefined;
      forcePathStyle: boolean;
      credentials: { accessKeyId: string; secretAccessKey: string } | undefined;
      publicBaseUrl: string;
      /** S3_TIMEOUT_MS: connecting, and waiting for each response, to the store. */
      timeoutMs: number;
    };

/** `MEDIA_BASE_URL`: an absolute URL, or a path starting with `/` (relative to the API's own host). */
function mediaBaseUrl(env: Env): string {
  const value = raw(env, 'MEDIA_BASE_URL');
  if (value === undefined) return '/media';
  if (value.startsWith('/') && !value.startsWith('//')) return value.replace(/\/+$/, '');
  if (!/^https?:\/\//i.test(value)) {
    throw new ConfigError(
      'MEDIA_BASE_URL',
      `must be a path starting with / or an http(s) URL (got "${value}")`,
    );
  }
  return httpUrl(env, 'MEDIA_BASE_URL') as string;
}

export function parseMedia(env: Env, dataDir: string): MediaConfig {
  const bucket = raw(env, 'S3_BUCKET');
  if (bucket === undefined)
    return { driver: 'local', dir: path.join(dataDir, 'media'), baseUrl: mediaBaseUrl(env) };
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) {
    throw new ConfigError('S3_BUCKET', `must be a valid bucket name (got "${bucket}")`);
  }
  const region = raw(env, 'S3_REGION') ?? 'us-east-1';
  const endpoint = httpUrl(env, 'S3_ENDPOINT');
  const forcePathStyle = boolean(env, 'S3_FORCE_PATH_STYLE', false);
  const accessKeyId = raw(env, 'S3_ACCESS_KEY_ID');
  const secretAccessKey = raw(env, 'S3_SECRET_ACCESS_KEY');
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) {
    // Never echo either value: one of them is a secret.
    throw new ConfigError(
      accessKeyId === undefined ? 'S3_ACCESS_KEY_ID' : 'S3_SECRET_ACCESS_KEY',
      'must be set together with its pair (or neither, to use the AWS default credential chain)',
    );
  }
  const credentials =
    accessKeyId !== undefined && secretAccessKey !== undefined ? { accessKeyId, secretAccessKey } : undefined;
  const derivedBase = endpoint
    ? forcePathStyle
      ? `${endpoint}/${bucket}`
      : undefined
    : `https://${bucket}.s3.${region}.amazonaws.com`;
  const publicBaseUrl = httpUrl(env, 'S3_PUBLIC_BASE_URL') ?? derivedBase;
  if (publicBaseUrl === undefined) {
    throw new ConfigError(
      'S3_PUBLIC_BASE_URL',
      'must be set when S3_ENDPOINT is set without S3_FORCE_PATH_STYLE',
    );
  }
  const timeoutMs = integer(env, 'S3_TIMEOUT_MS', 10_000, 100, 600_000);
  return { driver: 's3', bucket, region, endpoint, forcePathStyle, credentials, publicBaseUrl, timeoutMs };
}
