import { type AnyEndpoint, endpoint } from '../../http/endpoint.js';
import { t } from '../../http/response-schema.js';
import { publicUserExample, publicUserShape } from '../users/view.js';
import { bannersRules, inspirersRules } from './rules.js';
import { bannerShape, type PromotionsService } from './service.js';

const DEFAULT_INSPIRERS = 10;

/** Both public; each answers GET (the apps' catalogue) and POST (the apps send most calls as forms). */
export function promotionEndpoints(promotions: PromotionsService): AnyEndpoint[] {
  return (['GET', 'POST'] as const).flatMap((method) => [
    endpoint({
      method,
      path: '/promotions/banners',
      summary: 'The banners shown now',
      description:
        'Those with starts_at ≤ now < ends_at (a missing bound is open), ordered by position, then id.',
      tag: 'promotions',
      auth: 'none',
      readOnly: true,
      rules: bannersRules,
      response: t.object({ banners: t.array(bannerShape) }),
      example: {
        banners: [
          {
            id: '019ab0c4-9b8a-7f6e-8d5c-4b3a2f1e0d9c',
            title: '가을 이벤트',
            image_url: 'https://cdn.example.com/banners/autumn.jpg',
            link_url: 'https://example.com/events/autumn',
            position: 1,
            starts_at: '2026-11-01T00:00:00.000Z',
            ends_at: null,
          },
        ],
      },
      handle: async () => ({ banners: await promotions.activeBanners() }),
    }),
    endpoint({
      method,
      path: '/promotions/inspirers',
      summary: 'A uniform random sample of inspirers',
      description:
        'At most `limit` users marked inspirer (never disabled ones), none of `exclude`, no duplicates, in ' +
        'random order, as public user views. Each call costs the same whatever the number of users.',
      tag: 'promotions',
      auth: 'none',
      readOnly: true,
      rules: inspirersRules,
      response: t.object({ inspirers: t.array(publicUserShape) }),
      example: { inspirers: [{ ...publicUserExample, is_inspirer: true }] },
      handle: async ({ params }) => ({
        inspirers: await promotions.sampleInspirers(params.exclude ?? [], params.limit ?? DEFAULT_INSPIRERS),
      }),
    }),
  ]);
}
