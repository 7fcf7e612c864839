import { SEEDED_PASSWORD, seededId } from './mix-seed.js';

interface Answer {
  status: number;
  data: Record<string, unknown>;
}

async function call(url: string, method: 'GET' | 'POST', route: string, token?: string, form?: object) {
  const response = await fetch(`${url}${route}`, {
    method,
    headers: token ? { authorization: `Bearer ${token}` } : {},
    body: form ? new URLSearchParams(form as Record<string, string>) : undefined,
  });
  const body = (await response.json().catch(() => ({}))) as { data?: Record<string, unknown> };
  return { status: response.status, data: body.data ?? {} } satisfies Answer;
}

/** A field of an answer's `data`, one object level down (`user.id`, `post.liked_by_me`). */
function field(answer: Answer, object: string, name: string): unknown {
  return (answer.data[object] as Record<string, unknown> | undefined)?.[name];
}

function expectThat(holds: boolean, step: string, answer: Answer): void {
  if (!holds) {
    throw new Error(
      `shared state across instances: ${step} (answered ${answer.status} ${JSON.stringify(answer.data).slice(0, 200)})`,
    );
  }
}

/**
 * That the instances keep no state of their own that the next request needs: each step writes through one
 * instance and reads through the other, addressed directly (through nginx, the pairing would be up to its
 * round robin). A sign-up on the first is signed in on the second; a like on the first is seen, and taken
 * back, on the second; the first feed page's cursor opens the second page on the other. Returns what it
 * checked; throws at the first step the other instance does not see. What it adds (the sign-up; the like is
 * taken back) is the kind of row the run's seed restoration removes.
 */
export async function checkSharedState(
  [first, second]: readonly [string, string],
  token: string,
  tag: string,
): Promise<string[]> {
  const signedUp = await call(first, 'POST', '/v1/auth/register', undefined, {
    type: 'email',
    email: `reg-${tag}-shared@bench.example`,
    username: `reg${tag}shared`,
    gender: '1',
    user_agreement: 'on',
    password: SEEDED_PASSWORD,
  });
  const newToken = field(signedUp, 'user', 'api_token');
  expectThat(signedUp.status === 200 && typeof newToken === 'string', 'sign-up on the first', signedUp);
  const user = await call(second, 'GET', '/v1/user/get', newToken as string);
  expectThat(
    user.status === 200 && field(user, 'user', 'id') === field(signedUp, 'user', 'id'),
    "the second instance knows the first's new user by its token",
    user,
  );

  const post = seededId('post', 1);
  const liked = await call(first, 'POST', `/v1/post/${post}/like`, token);
  expectThat(liked.status === 200, 'like on the first', liked);
  const seen = await call(second, 'GET', `/v1/post/single/${post}/raw`, token);
  expectThat(field(seen, 'post', 'liked_by_me') === true, 'the second instance sees the like', seen);
  const unliked = await call(second, 'POST', `/v1/post/${post}/unlike`, token);
  expectThat(unliked.status === 200, 'unlike on the second', unliked);
  const after = await call(first, 'GET', `/v1/post/single/${post}/raw`, token);
  expectThat(field(after, 'post', 'liked_by_me') === false, 'the first instance sees the unlike', after);

  const page1 = await call(first, 'GET', '/v1/post/raw/feed?order=new', token);
  const cursor = page1.data.next_cursor;
  expectThat(page1.status === 200 && typeof cursor === 'string', 'feed page 1 on the first', page1);
  const page2 = await call(
    second,
    'GET',
    `/v1/post/raw/feed?${new URLSearchParams({ order: 'new', cursor: String(cursor) })}`,
    token,
  );
  expectThat(
    page2.status === 200 && Array.isArray(page2.data.posts) && page2.data.posts.length > 0,
    'feed page 2 on the second, from the first page’s cursor',
    page2,
  );
  return [
    'sign-up on instance 1, user/get with its new token on instance 2: the same user',
    'like on instance 1 seen on instance 2, unlike on instance 2 seen on instance 1',
    "feed page 1 on instance 1, page 2 on instance 2 from page 1's cursor",
  ];
}
