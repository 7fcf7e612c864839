import { file, fileArray } from '../../validation/fields.js';
import type { Rule, UploadedFile } from '../../validation/types.js';
import { ACCEPTED_FORMATS, probeImage } from './probe.js';

export interface ImageLimits {
  maxBytes: number;
  maxPixels: number;
}

/** The field's probe result is kept in the validation notes, so the service never decodes the header twice. */
export const IMAGE_NOTE = (field: string) => `image:${field}`;

function imageRule(maxPixels: number): Rule<UploadedFile> {
  return {
    name: `image|mimes:${ACCEPTED_FORMATS.join(',')}`,
    check: async (upload, context, field) => {
      const probe = await probeImage(upload.data, maxPixels);
      if (!probe.ok) {
        if (probe.reason === 'wrong_type')
          return { rule: 'mimes', params: { values: ACCEPTED_FORMATS.join(', ') } };
        if (probe.reason === 'too_many_pixels') return { rule: 'dimensions' };
        return { rule: 'image' };
      }
      context.notes.set(IMAGE_NOTE(field), probe);
      return undefined;
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
    .rule(imageRule(limits.maxPixels))
    .describe(
      `JPEG, PNG or GIF (judged by the bytes), at most ${limits.maxPixels.toLocaleString('en')} pixels.`,
    );
}

/**
 * Up to `maxCount` uploaded images under one name (`images[]`): each held to the same rules as `imageField`,
 * the first failing one reported on the field. Each probe is noted as `IMAGE_NOTE('<field>.<index>')`.
 */
export function imageListField(limits: ImageLimits, maxCount: number) {
  const maxKilobytes = Math.floor(limits.maxBytes / 1024);
  const eachImage = imageRule(limits.maxPixels);
  const everyImage: Rule<UploadedFile[]> = {
    name: `each:max:${maxKilobytes}|${eachImage.name}`,
    check: async (uploads, context, field) => {
      for (const [index, upload] of uploads.entries()) {
        if (upload.truncated || upload.data.length > maxKilobytes * 1024)
          return { rule: 'max.file', params: { max: maxKilobytes } };
        const failure = await eachImage.check(upload, context, `${field}.${index}`);
        if (failure) return failure;
      }
      return undefined;
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
    .rule(everyImage)
    .describe(
      `Up to ${maxCount} JPEG, PNG or GIF files (judged by the bytes), each at most ` +
        `${limits.maxPixels.toLocaleString('en')} pixels.`,
    );
}
