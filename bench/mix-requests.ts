import sharp from 'sharp';
import { SEEDED_PASSWORD, SIGNED_IN_USERS, seededEmail, seededId } from './mix-seed.js';
import type { OpenRequest } from './open-load.js';
import { seededRandom, weightedPick } from './open-model.js';

/** The app's traffic, in per cent of requests (the brief of the traffic-mix scenario). */
export const MIX = {
  feed: 45,
  validate: 20,
  'user/get': 10,
  'like/unlike': 10,
  post: 5,
  login: 5,
  register: 3,
  'post/create': 2,
} as const;
export type MixKind = keyof typeof MIX;
export const MIX_KINDS = Object.keys(MIX) as MixKind[];

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const ok = (status: number) => status === 200;
type Order = 'hot' | 'new';

export interface MixContext {
  users: number;
  posts: number;
  /** API tokens of signed-in seeded users (users 1..SIGNED_IN_USERS, who never liked a seeded post). */
  tokens: string[];
  /** A JPEG a phone might upload (a post's one image). */
  image: Buffer;
  /** The cursor after page 1 and after page 2 of each order, refreshed from every answer. */
  cursors: Record<Order, [string, string]>;
}

/** Logs in `count` seeded users through the API (as the app would) and returns their tokens. */
export async function signIn(url: string, count: number): Promise<string[]> {
  const tokens: string[] = [];
  for (let n = 1; n <= Math.min(count, SIGNED_IN_USERS); n++) {
    const response = await fetch(`${url}/v1/auth/login/email`, {
      method: 'POST',
      body: new URLSearchParams({ email: seededEmail(n), password: SEEDED_PASSWORD }),
    });
    const body = (await response.json()) as { data?: { user?: { api_token?: string } } };
    const token = body.data?.user?.api_token;
    if (response.status !== 200 || token === undefined) {
      throw new Error(
        `login of seeded user ${n} answered ${response.status}: ${JSON.stringify(body).slice(0, 300)}`,
      );
    }
    tokens.push(token);
  }
  return tokens;
}

function nextCursor(body: string): string | undefined {
  try {
    const cursor = (JSON.parse(body) as { data?: { next_cursor?: unknown } }).data?.next_cursor;
    return typeof cursor === 'string' ? cursor : undefined;
  } catch {
    return undefined;
  }
}

/** Walks pages 1 and 2 of both orders once, so page 2 and 3 requests have a cursor from the start. */
export async function firstCursors(url: string, token: string): Promise<Record<Order, [string, string]>> {
  const walk = async (order: Order): Promise<[string, string]> => {
    const page = async (cursor?: string) => {
      const query = new URLSearchParams({ order, ...(cursor ? { cursor } : {}) });
      const response = await fetch(`${url}/v1/post/raw/feed?${query}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      const next = nextCursor(await response.text());
      if (response.status !== 200 || next === undefined)
        throw new Error(`feed ${order} answered ${response.status}`);
      return next;
    };
    const afterFirst = await page();
    return [afterFirst, await page(afterFirst)];
  };
  return { hot: await walk('hot'), new: await walk('new') };
}

export function sampleImage(): Promise<Buffer> {
  return sharp({ create: { width: 1080, height: 810, channels: 3, background: { r: 200, g: 120, b: 40 } } })
    .composite([
      {
        input: Buffer.from(
          '<svg width="1080" height="810"><circle cx="540" cy="405" r="300" fill="#3a6"/><text x="80" y="120" font-size="80">bench</text></svg>',
        ),
      },
    ])
    .jpeg({ quality: 85 })
    .toBuffer();
}

function multipart(text: string, image: Buffer): { headers: Record<string, string>; body: Buffer } {
  const boundary = `----bench${Math.random().toString(36).slice(2)}`;
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="text"\r\n\r\n${text}\r\n`),
    Buffer.from(
      `--${boundary}\r\ncontent-disposition: form-data; name="images[]"; filename="photo.jpg"\r\ncontent-type: image/jpeg\r\n\r\n`,
    ),
    image,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { headers: { 'content-type': `multipart/form-data; boundary=${boundary}` }, body };
}

/**
 * The request for each slot of a run: what it asks for drawn with the mix's weights (`only` narrows it to
 * one kind), from a seeded generator. `tag` keeps fresh addresses and usernames unique across runs; the `x`
 * between it and the counter keeps run 1's 81st name apart from run 18's first.
 */
export function mixRequests(
  context: MixContext,
  tag: string,
  seed: number,
  only?: MixKind,
): (index: number) => OpenRequest {
  const random = seededRandom(seed);
  const below = (n: number) => Math.floor(random() * n);
  const bearer = () => ({ authorization: `Bearer ${context.tokens[below(context.tokens.length)]}` });
  const seededUser = () => 1 + below(context.users);
  // A like is taken back only once it has been answered: the pair then leaves the seed as it was.
  const liked: Array<{ token: string; post: string }> = [];
  let fresh = 0;

  const make: Record<MixKind, (index: number) => OpenRequest> = {
    feed: () => {
      const order: Order = random() < 0.5 ? 'hot' : 'new';
      const page = 1 + below(3);
      const cursor = page === 1 ? undefined : context.cursors[order][page - 2];
      const query = new URLSearchParams({ order, ...(cursor ? { cursor } : {}) });
      return {
        kind: 'feed',
        method: 'GET',
        path: `/v1/post/raw/feed?${query}`,
        headers: bearer(),
        expect: ok,
        answered: (body) => {
          const next = page < 3 ? nextCursor(body) : undefined;
          if (next !== undefined) context.cursors[order][page - 1] = next;
        },
      };
    },
    validate: () => {
      const field = (['email', 'username', 'slug'] as const)[below(3)] ?? 'email';
      const taken = random() < 0.5;
      const n = taken ? seededUser() : ++fresh;
      const values = taken
        ? { email: seededEmail(n).toUpperCase(), username: `mix${n}`, slug: `mix-${n}` }
        : { email: `free-${tag}-${n}@bench.example`, username: `free${tag}x${n}`, slug: `free-${tag}-${n}` };
      return {
        kind: 'validate',
        method: 'POST',
        path: `/v1/validate/${field}`,
        headers: FORM,
        body: new URLSearchParams({ [field]: values[field] }).toString(),
        expect: (status) => status === (taken ? 422 : 200),
      };
    },
    'user/get': () => ({
      kind: 'user/get',
      method: 'GET',
      path: '/v1/user/get',
      headers: bearer(),
      expect: ok,
    }),
    'like/unlike': () => {
      const undo = liked.length > 0 && random() < 0.5 ? liked.shift() : undefined;
      const pair = undo ?? {
        token: context.tokens[below(context.tokens.length)] as string,
        post: seededId('post', 1 + below(context.posts)),
      };
      return {
        kind: 'like/unlike',
        method: 'POST',
        path: `/v1/post/${pair.post}/${undo ? 'unlike' : 'like'}`,
        headers: { authorization: `Bearer ${pair.token}` },
        expect: ok,
        answered: () => {
          if (!undo) liked.push(pair);
        },
      };
    },
    post: () => ({
      kind: 'post',
      method: 'GET',
      path: `/v1/post/single/${seededId('post', 1 + below(context.posts))}/raw`,
      headers: bearer(),
      expect: ok,
    }),
    login: () => ({
      kind: 'login',
      method: 'POST',
      path: '/v1/auth/login/email',
      headers: FORM,
      body: new URLSearchParams({ email: seededEmail(seededUser()), password: SEEDED_PASSWORD }).toString(),
      expect: ok,
    }),
    register: () => {
      const n = ++fresh;
      return {
        kind: 'register',
        method: 'POST',
        path: '/v1/auth/register',
        headers: FORM,
        body: new URLSearchParams({
          type: 'email',
          email: `reg-${tag}-${n}@bench.example`,
          username: `reg${tag}x${n}`,
          gender: String(n % 2),
          user_agreement: 'on',
          password: SEEDED_PASSWORD,
        }).toString(),
        expect: ok,
      };
    },
    'post/create': (index) => {
      const { headers, body } = multipart(`bench mix post ${tag} ${index}`, context.image);
      return {
        kind: 'post/create',
        method: 'POST',
        path: '/v1/post/create',
        headers: { ...headers, ...bearer() },
        body,
        expect: ok,
      };
    },
  };
  return (index) => make[only ?? weightedPick(MIX, random())](index);
}
