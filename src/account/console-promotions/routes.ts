import type { FastifyRequest } from 'fastify';
import { type AnyAdminEndpoint, adminEndpoint } from '../../http/admin-endpoint.js';
import { t } from '../../http/response-schema.js';
import { type ImageLimits, imageField } from '../../modules/images/rules.js';
import { bannerShape } from '../../modules/promotions/service.js';
import { integer, string } from '../../validation/field-kinds.js';
import { rules } from '../../validation/rule-list.js';
import { actorOf, refusedAs } from '../console-users/route-actor.js';
import { type AccessRecorder, reasonField } from '../console-users/staff-access.js';
import type { ConsolePromotions } from './promotions.js';

const BANNER_ID = '0193a5c1-7d2e-7f00-8a11-3c4d5e6f7a8c';
const USER_ID = '0193a5c1-7d2e-7f00-8a11-3c4d5e6f7a8b';

const pageRules = rules({
  limit: integer().min(1).max(100).describe('Rows per page (1–100, 20 by default).'),
  cursor: string().max(512).describe("The previous page's `next_cursor`."),
});

/** The banner fields as `accounts banner add` takes them; the service checks them by its rules. */
const LINK = 'http(s), or an app scheme of BANNER_LINK_SCHEMES; empty for none.';
const INSTANT = 'ISO 8601 with a zone, or a date (UTC); empty for an open bound.';
const editFields = {
  link_url: string().max(2048).describe(`What the banner opens: ${LINK}`),
  position: string().max(16).describe('Display order, lowest first (ties by id).'),
  starts_at: string().max(64).describe(`The first instant shown: ${INSTANT}`),
  ends_at: string().max(64).describe(`The first instant no longer shown: ${INSTANT}`),
};
const EDITABLE = ['link_url', 'position', 'starts_at', 'ends_at'] as const;

/**
 * The request's own values of `names`, as text: an empty one stays empty (it clears the field, as on the
 * command line), where the rule engine would read it as absent.
 */
function sentText(request: FastifyRequest, names: readonly string[]): Record<string, string | undefined> {
  const body = (request.body ?? {}) as Record<string, unknown>;
  const input: Record<string, string | undefined> = {};
  for (const name of names) {
    const value = body[name];
    if (value === undefined) continue;
    input[name] = value === null ? '' : typeof value === 'object' ? undefined : String(value);
  }
  return input;
}

const listedBanner = t.extend(bannerShape, {
  state: t.enum(['active', 'scheduled', 'ended'] as const),
});
const inspirer = t.object({
  id: t.string(),
  email: t.string('Masked: m***@example.com.'),
  username: t.string(),
  disabled_at: t.nullable(t.dateTime()),
});
const userChanged = t.object({ id: t.string(), username: t.string(), is_inspirer: t.boolean() });

const BANNER = {
  id: BANNER_ID,
  title: 'Spring festival',
  image_url: 'https://media.example.com/banners/Xk2….jpg',
  link_url: 'https://example.com/spring',
  position: 0,
  starts_at: '2026-12-01T00:00:00.000Z',
  ends_at: null,
};

/** The admin API's banners and inspirers (docs/console-content.md#banners-and-inspirers): the operator commands' services. */
export function consolePromotionEndpoints(
  content: ConsolePromotions,
  image: ImageLimits,
  recorder: AccessRecorder,
): AnyAdminEndpoint[] {
  // A banner is nobody's data, but a change to one is recorded, and so is its refusal; an inspirer's
  // refusal names no one (the user named in the form is not looked up for a member who may not act).
  const refused = (action: string, permission: string) => refusedAs(recorder, action, permission);
  return [
    adminEndpoint({
      method: 'GET',
      path: '/banners',
      summary: 'Every banner in display order, with its state, a keyset page at a time',
      tag: 'content',
      auth: 'staff',
      permission: 'content.read',
      rules: pageRules,
      response: t.object({ banners: t.array(listedBanner), next_cursor: t.nullable(t.string()) }),
      example: { banners: [{ ...BANNER, state: 'scheduled' }], next_cursor: null },
      handle: ({ params, staff, request }) =>
        content.bannerPage(actorOf(staff, request), params.cursor, params.limit ?? 20),
    }),
    adminEndpoint({
      method: 'POST',
      path: '/banners',
      summary: 'Add a banner from an uploaded image (multipart), under `accounts banner add`’s rules',
      description: 'The image is re-encoded as profile pictures are; `image_url` instead takes an address.',
      tag: 'content',
      auth: 'staff',
      permission: 'content.write',
      refused: refused('banner.create', 'content.write'),
      files: 1,
      rules: rules({
        title: string().max(255).describe('The banner title (required; at most 255 characters).'),
        image: imageField(image),
        image_url: string().max(2048).describe('An http(s) image address, when no image is uploaded.'),
        ...editFields,
      }),
      response: bannerShape,
      example: BANNER,
      handle: ({ params, staff, request }) =>
        content.addBanner(
          actorOf(staff, request),
          sentText(request, ['title', 'image_url', ...EDITABLE]),
          params.image,
        ),
    }),
    adminEndpoint({
      method: 'POST',
      path: '/banners/:id/update',
      summary: "Change a banner's link, display order or schedule; an empty field clears it",
      tag: 'content',
      auth: 'staff',
      permission: 'content.write',
      refused: refused('banner.update', 'content.write'),
      errors: [404],
      rules: rules({ id: string().required().max(64).describe("The banner's `id`."), ...editFields }),
      response: bannerShape,
      example: BANNER,
      handle: ({ params, staff, request }) =>
        content.updateBanner(actorOf(staff, request), params.id, sentText(request, EDITABLE)),
    }),
    adminEndpoint({
      method: 'POST',
      path: '/banners/:id/delete',
      summary: 'Remove a banner',
      tag: 'content',
      auth: 'staff',
      permission: 'content.write',
      refused: refused('banner.delete', 'content.write'),
      errors: [404],
      rules: rules({ id: string().required().max(64).describe("The banner's `id`.") }),
      response: t.object({ removed: t.literal(true) }),
      example: { removed: true },
      handle: ({ params, staff, request }) => content.removeBanner(actorOf(staff, request), params.id),
    }),
    adminEndpoint({
      method: 'GET',
      path: '/inspirers',
      summary: 'The inspirers by username, emails masked, a keyset page at a time (recorded)',
      tag: 'content',
      auth: 'staff',
      permission: 'content.read',
      refused: refused('inspirers.view', 'content.read'),
      rules: pageRules,
      response: t.object({ inspirers: t.array(inspirer), next_cursor: t.nullable(t.string()) }),
      example: {
        inspirers: [{ id: USER_ID, email: 'm***@example.com', username: 'minji', disabled_at: null }],
        next_cursor: null,
      },
      handle: ({ params, staff, request }) =>
        content.inspirerPage(actorOf(staff, request), params.cursor, params.limit ?? 20),
    }),
    ...(['add', 'remove'] as const).map((change) =>
      adminEndpoint({
        method: 'POST',
        path: change === 'add' ? '/inspirers' : '/inspirers/remove',
        summary:
          change === 'add'
            ? 'Make a user an inspirer (recorded with the user)'
            : 'Stop showing a user as an inspirer (recorded with the user)',
        tag: 'content',
        auth: 'staff',
        permission: 'content.write',
        refused: refused(`user.inspirer.${change}`, 'content.write'),
        errors: [404],
        rules: rules({
          user: string().required().max(255).describe('The user: an id, an email or a username.'),
          reason: reasonField,
        }),
        response: userChanged,
        example: { id: USER_ID, username: 'minji', is_inspirer: change === 'add' },
        handle: async ({ params, staff, request }) => {
          const actor = actorOf(staff, request);
          const user =
            change === 'add'
              ? await content.addInspirer(actor, params.user, params.reason)
              : await content.removeInspirer(actor, params.user, params.reason);
          return { id: user.id, username: user.username, is_inspirer: user.is_inspirer };
        },
      }),
    ),
  ];
}
