import { file, fileArray } from '../../validation/field-kinds.js';
import type { ConvertingRule, UploadedFile } from '../../validation/types.js';
import { ACCEPTED_FORMATS, probeImage, type ValidatedImage } from './probe.js';

export interface ImageLimits {
  maxBytes: number;
  maxPixels: number;
}

/** The field's value becomes `{file, probe}`, so the service never decodes the header twice. */
function imageRule(maxPixels: number): ConvertingRule<UploadedFile, ValidatedImage> {
  return {
    name: `image|mimes:${ACCEPTED_FORMATS.join(',')}`,
    failures: [
      { rule: 'mimes', params: { values: ACCEPTED_FORMATS.join(', ') } },
      { rule: 'dimensions' },
      { rule: 'image' },
    ],
    check: async (upload) => {
      const probe = await probeImage(upload.data, maxPixels);
      if (!probe.ok) {
        if (probe.reason === 'wrong_type')
          return { rule: 'mimes', params: { values: ACCEPTED_FORMATS.join(', ') } };
        if (probe.reason === 'too_many_pixels') return { rule: 'dimensions' };
        return { rule: 'image' };
      }
      return { converted: { file: upload, probe } };
    },
    schema: (schema) => {
      schema.contentMediaType = 'image/jpeg, image/png, image/gif';
    },
  };
}

/** An uploaded image: at most `maxBytes`, a real jpeg, png or gif by its bytes, at most `maxPixels`. */
export function imageField(limits: ImageLimits) {
  return file()
    .max(Math.floor(limits.maxBytes / 1024))
    .convert(imageRule(limits.maxPixels))
    .describe(
      `JPEG, PNG or GIF (judged by the bytes), at most ${limits.maxPixels.toLocaleString('en')} pixels.`,
    );
}

/**
 * Up to `maxCount` uploaded images under one name (`images[]`): each held to the same rules as `imageField`,
 * the first failing one reported on the field. The value becomes the list of `{file, probe}`.
 */
export function imageListField(limits: ImageLimits, maxCount: number) {
  const maxKilobytes = Math.floor(limits.maxBytes / 1024);
  const eachImage = imageRule(limits.maxPixels);
  const everyImage: ConvertingRule<UploadedFile[], ValidatedImage[]> = {
    name: `each:max:${maxKilobytes}|${eachImage.name}`,
    check: async (uploads, context, field) => {
      const images: ValidatedImage[] = [];
      for (const [index, upload] of uploads.entries()) {
        if (upload.truncated || upload.data.length > maxKilobytes * 1024)
          return { rule: 'max.file', params: { max: maxKilobytes } };
        const result = await eachImage.check(upload, context, `${field}.${index}`);
        if (!('converted' in result)) return result;
        images.push(result.converted);
      }
      return { converted: images };
    },
    schema: (schema) => {
      schema.items = {
        type: 'string',
        format: 'binary',
        contentMediaType: 'image/jpeg, image/png, image/gif',
      };
    },
  };
  return fileArray()
    .max(maxCount)
    .convert(everyImage)
    .describe(
      `Up to ${maxCount} JPEG, PNG or GIF files (judged by the bytes), each at most ` +
        `${limits.maxPixels.toLocaleString('en')} pixels.`,
    );
}
