import { describe, expect, it } from 'vitest';
import { newId } from '../../src/lib/ids.js';
import { useTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { expectOk, postForm } from '../helpers/http.js';

const HOUR = 3_600_000;
const at = (offsetMs: number) => new Date(Date.now() + offsetMs);

/** Stores one always-active banner per link, in this order, and answers the links promotions/banners serves. */
async function servedLinks(ctx: ReturnType<typeof useTestApp>, links: readonly string[]) {
  const db = ctx.database.handle.db;
  await db.deleteFrom('banners').execute();
  for (const [position, link_url] of links.entries()) {
    await db
      .insertInto('banners')
      .values({
        id: newId(),
        title: `link-${position}`,
        image_url: 'https://cdn.example.com/b.png',
        link_url,
        position,
        starts_at: null,
        ends_at: null,
      })
      .execute();
  }
  const data = expectOk<{ banners: Array<{ link_url: string | null }> }>(
    await ctx.app.inject({ method: 'GET', url: '/v1/promotions/banners' }),
  );
  return data.banners.map((banner) => banner.link_url);
}

describe.each(backends)('%s: promotions/banners', (backend) => {
  const ctx = useTestApp(backend);
  const db = () => ctx.database.handle.db;

  async function addBanner(
    title: string,
    fields: { position?: number; starts_at?: Date | null; ends_at?: Date | null },
  ) {
    const row = {
      id: newId(),
      title,
      image_url: `https://cdn.example.com/${title}.png`,
      link_url: title === 'current' ? 'https://example.com/event' : null,
      position: fields.position ?? 0,
      starts_at: fields.starts_at ?? null,
      ends_at: fields.ends_at ?? null,
    };
    await db().insertInto('banners').values(row).execute();
    return row;
  }

  const titles = async (method: 'GET' | 'POST' = 'GET') => {
    const res =
      method === 'GET'
        ? await ctx.app.inject({ method: 'GET', url: '/v1/promotions/banners' })
        : await postForm(ctx.app, '/dev/promotions/banners', {});
    return expectOk<{ banners: Array<{ title: string }> }>(res).banners.map((banner) => banner.title);
  };

  it('answers only the banners whose window holds now, open bounds included, in position then id order', async () => {
    await db().deleteFrom('banners').execute();
    await addBanner('past', { starts_at: at(-2 * HOUR), ends_at: at(-HOUR) });
    await addBanner('future', { starts_at: at(HOUR), ends_at: at(2 * HOUR) });
    await addBanner('current', { position: 2, starts_at: at(-HOUR), ends_at: at(HOUR) });
    await addBanner('open-start', { position: 1, ends_at: at(HOUR) });
    await addBanner('open-end', { position: 3, starts_at: at(-HOUR) });
    await addBanner('always', { position: -1 });
    await addBanner('ended-just-now', { ends_at: at(-1) });
    await addBanner('starts-soon', { starts_at: at(60_000) });
    const tie1 = await addBanner('tie-a', { position: 5 });
    const tie2 = await addBanner('tie-b', { position: 5 });
    const ties = [tie1, tie2].sort((a, b) => (a.id < b.id ? -1 : 1)).map((row) => row.title);
    const expected = ['always', 'open-start', 'current', 'open-end', ...ties];
    expect(await titles('GET')).toEqual(expected);
    expect(await titles('POST')).toEqual(expected);
  });

  it('shows each banner with its fields, times in ISO 8601 UTC', async () => {
    await db().deleteFrom('banners').execute();
    const row = await addBanner('current', { position: 7, starts_at: at(-HOUR), ends_at: at(HOUR) });
    const data = expectOk(await ctx.app.inject({ method: 'GET', url: '/v1/promotions/banners' }));
    expect(data).toEqual({
      banners: [
        {
          id: row.id,
          title: 'current',
          image_url: 'https://cdn.example.com/current.png',
          link_url: 'https://example.com/event',
          position: 7,
          starts_at: row.starts_at?.toISOString(),
          ends_at: row.ends_at?.toISOString(),
        },
      ],
    });
  });

  it('serves no link for a stored link that is not http(s) or a configured app scheme', async () => {
    const links = [
      'javascript:alert(1)//https://',
      'JavaScript:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      'vbscript:msgbox(1)',
      'file:///etc/passwd',
      'myapp://events/1',
      'http://example.com/event',
    ];
    expect(await servedLinks(ctx, links)).toEqual([
      null,
      null,
      null,
      null,
      null,
      null,
      'http://example.com/event',
    ]);
  });

  it('answers an empty list when nothing is active, and ignores unknown parameters', async () => {
    await db().deleteFrom('banners').execute();
    await addBanner('past', { ends_at: at(-HOUR) });
    const data = expectOk(
      await ctx.app.inject({ method: 'GET', url: '/v1/promotions/banners?limit=abc&x[]=1' }),
    );
    expect(data).toEqual({ banners: [] });
  });
});

describe('promotions/banners with BANNER_LINK_SCHEMES set', () => {
  const ctx = useTestApp('pglite', { BANNER_LINK_SCHEMES: 'myapp, Other-App' });

  it('serves links of a configured app scheme, and still none of javascript:', async () => {
    expect(await servedLinks(ctx, ['myapp://events/1', 'other-app:open', 'javascript:x'])).toEqual([
      'myapp://events/1',
      'other-app:open',
      null,
    ]);
  });
});
