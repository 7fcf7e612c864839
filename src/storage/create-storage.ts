import type { MediaConfig } from '../config.js';
import { LocalStorage } from './local-storage.js';
import type { MediaStorage } from './media-storage.js';
import { S3Storage } from './s3-storage.js';

export function createStorage(config: MediaConfig): MediaStorage {
  if (config.driver === 'local') return new LocalStorage(config.dir, config.baseUrl);
  return new S3Storage(config);
}
