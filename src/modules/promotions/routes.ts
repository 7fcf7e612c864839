import { type AnyEndpoint, endpoint } from '../../http/endpoint.js';
import { bannersRules, inspirersRules } from './rules.js';
import type { PromotionsService } from './service.js';

const DEFAULT_INSPIRERS = 10;

/** Both public; each answers GET (the seed's catalogue) and POST (the apps send most calls as forms). */
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
      rules: bannersRules,
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
      rules: inspirersRules,
      handle: async ({ params }) => ({
        inspirers: await promotions.sampleInspirers(params.exclude ?? [], params.limit ?? DEFAULT_INSPIRERS),
      }),
    }),
  ]);
}
