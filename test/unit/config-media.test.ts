import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { configError } from '../helpers/config.js';

const S3 = {
  S3_BUCKET: 'profile-media',
  S3_ACCESS_KEY_ID: 'AKIAEXAMPLE',
  S3_SECRET_ACCESS_KEY: 'very-secret-value',
};

describe('media configuration', () => {
  it('defaults to local files under DATA_DIR/media, served at relative /media URLs', () => {
    expect(loadConfig({ DATA_DIR: '/srv/accounts' }).media).toEqual({
      driver: 'local',
      dir: path.join('/srv/accounts', 'media'),
      baseUrl: '/media',
    });
  });

  it('takes MEDIA_BASE_URL as an absolute URL or a path, without a trailing slash', () => {
    expect(loadConfig({ MEDIA_BASE_URL: 'https://cdn.example.com/media/' }).media).toMatchObject({
      baseUrl: 'https://cdn.example.com/media',
    });
    expect(loadConfig({ MEDIA_BASE_URL: '/files/' }).media).toMatchObject({ baseUrl: '/files' });
    expect(configError({ MEDIA_BASE_URL: 'ftp://example.com' }).variable).toBe('MEDIA_BASE_URL');
    expect(configError({ MEDIA_BASE_URL: '//cdn.example.com' }).variable).toBe('MEDIA_BASE_URL');
  });

  it('uses S3 when S3_BUCKET is set, with the AWS public URL by default', () => {
    expect(loadConfig({ ...S3, S3_REGION: 'ap-northeast-2' }).media).toEqual({
      driver: 's3',
      bucket: 'profile-media',
      region: 'ap-northeast-2',
      endpoint: undefined,
      forcePathStyle: false,
      credentials: { accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 'very-secret-value' },
      publicBaseUrl: 'https://profile-media.s3.ap-northeast-2.amazonaws.com',
      timeoutMs: 10_000,
    });
  });

  it('derives a path-style public URL for a custom endpoint, or takes S3_PUBLIC_BASE_URL', () => {
    const env = { ...S3, S3_ENDPOINT: 'http://127.0.0.1:9000/', S3_FORCE_PATH_STYLE: 'true' };
    expect(loadConfig(env).media).toMatchObject({
      endpoint: 'http://127.0.0.1:9000',
      forcePathStyle: true,
      publicBaseUrl: 'http://127.0.0.1:9000/profile-media',
    });
    expect(loadConfig({ ...env, S3_PUBLIC_BASE_URL: 'https://img.example.com' }).media).toMatchObject({
      publicBaseUrl: 'https://img.example.com',
    });
    expect(configError({ ...S3, S3_ENDPOINT: 'https://r2.example.com' }).variable).toBe('S3_PUBLIC_BASE_URL');
  });

  it('uses the default credential chain without keys, and refuses half a key pair without echoing it', () => {
    expect(loadConfig({ S3_BUCKET: 'profile-media' }).media).toMatchObject({ credentials: undefined });
    const error = configError({ S3_BUCKET: 'profile-media', S3_SECRET_ACCESS_KEY: 'very-secret-value' });
    expect(error.variable).toBe('S3_ACCESS_KEY_ID');
    expect(error.message).not.toContain('very-secret-value');
  });

  it('refuses a malformed bucket name or endpoint', () => {
    expect(configError({ S3_BUCKET: 'Bad_Bucket' }).variable).toBe('S3_BUCKET');
    expect(configError({ ...S3, S3_ENDPOINT: 'not a url' }).variable).toBe('S3_ENDPOINT');
  });
});
