import { type AnyEndpoint, endpoint } from '../../http/endpoint.js';
import type { RateCounter } from '../../limits/rate-counter.js';
import { type ImageLimits, imageField } from '../../modules/images/rules.js';
import type { UsersTaken } from '../../modules/users/rules.js';
import { userExample, userResponse } from '../../modules/users/view.js';
import { rules } from '../../validation/rule-list.js';
import { reauthProof } from '../reauth/rules.js';
import { clientInfo } from '../request-client.js';
import type { ProfilePictureService } from './picture.js';
import { userUpdateRules } from './rules.js';
import type { ProfileService } from './service.js';

/**
 * `providers`: the configured provider names, whose credentials a password-less account re-authenticates with;
 * `taken`: the uniqueness questions of the profile's names (the users service answers them).
 */
export function profileEndpoints(
  profile: ProfileService,
  providers: readonly string[],
  taken: UsersTaken,
): AnyEndpoint[] {
  return [
    endpoint({
      method: 'POST',
      path: '/user/update',
      summary: "Change the signed-in user's profile, email or password",
      description:
        'Any of the fields; those left out keep their value. Same rules and messages as registration; ' +
        'uniqueness ignores the user itself. A new password or email needs re-authentication ' +
        "(`current_password`, or a linked provider's credentials for a password-less account); a new " +
        'password signs out every other session.',
      tag: 'user',
      auth: 'required',
      rules: userUpdateRules(providers, taken),
      response: userResponse,
      example: { user: { ...userExample, bio: '안녕하세요, 민지입니다.' } },
      handle: async ({ params, auth, request }) => ({
        user: await profile.update(auth, params, reauthProof(params, providers), clientInfo(request)),
      }),
    }),
  ];
}

/** `imageUploads`: image uploads per user; each costs a probe and a decode in the renderer pool. */
export function profilePictureEndpoints(
  pictures: ProfilePictureService,
  limits: ImageLimits,
  imageUploads: RateCounter,
): AnyEndpoint[] {
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
      uploads: imageUploads,
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
        user: await pictures.replace(auth, params.profile_picture),
      }),
    }),
  ];
}
