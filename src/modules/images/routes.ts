import { type AnyEndpoint, endpoint } from '../../http/endpoint.js';
import { rules } from '../../validation/fields.js';
import type { ProfileService } from '../users/profile-service.js';
import { userExample, userResponse } from '../users/view.js';
import { type ImageLimits, imageField } from './rules.js';

export function imageEndpoints(profile: ProfileService, limits: ImageLimits): AnyEndpoint[] {
  return [
    endpoint({
      method: 'POST',
      path: '/user/profile-image/update',
      summary: "Replace the signed-in user's profile picture",
      description:
        'multipart/form-data. The image is re-encoded (no EXIF or GPS data survives) and stored with 256 and ' +
        '64 pixel square thumbnails; the previous picture is removed.',
      tag: 'user',
      auth: 'required',
      errors: [413],
      rules: rules({ profile_picture: imageField(limits).required() }),
      response: userResponse,
      example: {
        user: {
          ...userExample,
          profile_picture: {
            url: '/media/profile-pictures/b3JpZ2luYWwtcGljdHVyZQ.jpg',
            width: 1024,
            height: 768,
            thumbnails: {
              '64': '/media/profile-pictures/b3JpZ2luYWwtcGljdHVyZQ_64.jpg',
              '256': '/media/profile-pictures/b3JpZ2luYWwtcGljdHVyZQ_256.jpg',
            },
          },
        },
      },
      handle: async ({ params, auth }) => ({
        user: await profile.replacePicture(auth, params.profile_picture),
      }),
    }),
  ];
}
