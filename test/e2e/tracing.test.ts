import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { inProcessCommands } from '../helpers/commands.js';
import { TEST_SECRETS_KEY } from '../helpers/config.js';
import { processBackend } from '../helpers/database.js';
import { type CollectedSpan, OtlpCollector } from '../helpers/otlp-collector.js';
import { type FakePortOne, startFakePortOne } from '../helpers/portone.js';
import { type RunningService, startService } from '../helpers/process.js';
import { type ProcessStore, processStore } from '../helpers/process-store.js';
import { type FakeSolapi, startFakeSolapi } from '../helpers/solapi.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

/**
 * Tracing as a real `accounts serve` does it (docs/tracing.md): spans exported over OTLP/HTTP to a collector of
 * our own, the caller's `traceparent` honoured, and the webhook a request causes delivered in the same trace.
 */

const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/;

const account = {
  type: 'email',
  email: 'traced@example.com',
  username: 'traceduser',
  gender: '1',
  user_agreement: 'on',
  password: 'Sturdy-Passphrase-1937',
};

const named = (spans: CollectedSpan[], name: string) => spans.filter((span) => span.name === name);

describe(`${processBackend}: one trace across the service and a webhook receiver`, () => {
  let store: ProcessStore;
  let collector: OtlpCollector;
  let receiver: WebhookReceiver;
  let service: RunningService;
  let portone: FakePortOne;
  let solapi: FakeSolapi;
  let apiToken: string;

  beforeAll(async () => {
    collector = await OtlpCollector.start();
    receiver = await WebhookReceiver.start();
    portone = await startFakePortOne();
    solapi = await startFakeSolapi();
    store = await processStore(
      processBackend,
      {
        ...portone.env(),
        ...solapi.env(),
        SECRETS_KEY: TEST_SECRETS_KEY,
        WEBHOOK_ALLOW_PRIVATE: 'true',
        RATE_LIMIT_ENABLED: 'false',
        ARGON2_MEMORY_KIB: '1024',
        ARGON2_TIME_COST: '1',
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        OTEL_SERVICE_NAME: 'accounts-e2e',
        // The SDK's own variable: export every 100 ms instead of every 5 s, so the test waits less.
        OTEL_BSP_SCHEDULE_DELAY: '100',
      },
      { migrated: true },
    );
    const commands = inProcessCommands(store.env);
    const added = await commands.run(['webhook', 'add', receiver.url, '--json']);
    await commands.close();
    receiver.secrets = [(JSON.parse(added.stdout) as { secret: string }).secret];
    service = await startService(store.env);
  });
  afterAll(async () => {
    await service?.stop();
    await receiver?.close();
    await portone?.close();
    await solapi?.close();
    await collector?.close();
    await store?.cleanup();
  });

  it("continues the caller's trace through the request, its statements, its hash and its webhook", async () => {
    const response = await fetch(`${service.url}/v1/auth/register`, {
      method: 'POST',
      headers: { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` },
      body: new URLSearchParams(account),
    });
    expect(response.status).toBe(200);
    apiToken = ((await response.json()) as { data: { user: { api_token: string } } }).data.user.api_token;

    // The receiver is called in the caller's trace, by the delivery's span.
    const [delivered] = await receiver.received(1);
    expect(delivered?.body.type).toBe('user.created');
    expect(delivered?.verifiedBy).toEqual([true]);
    const [, receivedTrace, deliverySpan] = TRACEPARENT.exec(delivered?.traceparent ?? '') ?? [];
    expect(receivedTrace).toBe(CALLER_TRACE);

    const spans = await collector.until(
      (all) =>
        all.some((span) => span.name === 'webhook deliver') && all.some((span) => span.name === 'request'),
    );
    const trace = collector.trace(CALLER_TRACE);
    expect(collector.refused).toBe(0);
    expect(new Set(trace.map((span) => span.service))).toEqual(new Set(['accounts-e2e']));

    // The request's span: a server span whose parent is the caller's.
    const [request] = named(trace, 'request');
    expect(request).toMatchObject({
      parentSpanId: CALLER_SPAN,
      kind: 2,
      attributes: { 'http.request.method': 'POST', 'http.route': '/v1/auth/register' },
    });
    // Its statements and its hash, in the same trace.
    const statements = trace.filter((span) => span.name.startsWith('db '));
    // The sign-up writes the account, its token and its events in one statement (a WITH of INSERTs).
    expect(statements.map((span) => span.name)).toContain('db WITH');
    for (const statement of statements) {
      expect(statement.attributes['db.system.name']).toBe(
        processBackend === 'postgres' ? 'postgresql' : 'pglite',
      );
      // Parameterised: the values (the email above all) are never in the exported text.
      expect(String(statement.attributes['db.query.text'])).not.toContain(account.email);
    }
    expect(named(trace, 'password hash')).toHaveLength(1);
    // The address's verification mail, sent after the commit, still on the request's behalf.
    const mails = await collector.until((all) => named(all, 'mail send').length > 0);
    expect(named(mails, 'mail send')[0]).toMatchObject({
      traceId: CALLER_TRACE,
      attributes: { 'mail.kind': expect.any(String), 'mail.transport': 'log' },
    });

    // The delivery: in the trace, a child of nothing else than the request's context, the receiver's parent.
    const [deliver] = named(trace, 'webhook deliver');
    expect(deliver).toMatchObject({
      spanId: deliverySpan,
      status: 0,
      attributes: { 'webhook.event_type': 'user.created', 'webhook.attempt': 1 },
    });
    expect(trace.map((span) => span.spanId)).toContain(deliver?.parentSpanId);
    // No span of the request went to a trace of its own.
    expect(spans.filter((span) => span.name === 'request' && span.traceId !== CALLER_TRACE)).toEqual([]);

    // Every log line written inside the request names its trace (lines leave in batches: waited for).
    const lines = () =>
      service
        .output()
        .split('\n')
        .filter((line) => line.includes('/v1/auth/register'))
        .map((line) => JSON.parse(line) as { trace_id?: string });
    await vi.waitFor(() => expect(lines().length).toBeGreaterThan(0));
    for (const line of lines()) expect(line.trace_id).toBe(CALLER_TRACE);
  });

  it('records nothing of a request its caller did not sample, and passes that choice on', async () => {
    const unsampled = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
    const response = await fetch(`${service.url}/v1/auth/register`, {
      method: 'POST',
      headers: { traceparent: `00-${unsampled}-${CALLER_SPAN}-00` },
      body: new URLSearchParams({ ...account, email: 'unsampled@example.com', username: 'unsampleduser' }),
    });
    expect(response.status).toBe(200);
    // Its webhook goes out in the caller's trace, still marked "not sampled" for the receiver.
    const delivered = await vi.waitFor(() => {
      const found = receiver.requests.find((request) => request.body.data?.email === 'unsampled@example.com');
      expect(found).toBeDefined();
      return found;
    });
    expect(delivered?.traceparent).toMatch(new RegExp(`^00-${unsampled}-[0-9a-f]{16}-00$`));

    // A sampled request after it: once its span is in, the unsampled one's would have been too.
    const sampled = '0f0e0d0c0b0a09080706050403020100';
    const after = await fetch(`${service.url}/v1/user/get`, {
      headers: { authorization: `Bearer ${apiToken}`, traceparent: `00-${sampled}-${CALLER_SPAN}-01` },
    });
    expect(after.status).toBe(200);
    await collector.until((all) => all.some((span) => span.traceId === sampled && span.name === 'request'));
    expect(collector.trace(unsampled)).toEqual([]);
  });

  it("sends the caller's trace on to PortOne, under a span of the look-up", async () => {
    const authorization = `Bearer ${apiToken}`;
    const started = await fetch(`${service.url}/v1/user/identity/start`, {
      method: 'POST',
      headers: { authorization },
    });
    const { identity_verification_id: id } = (
      (await started.json()) as { data: { identity_verification_id: string } }
    ).data;
    const verified = await fetch(`${service.url}/v1/user/identity/verify`, {
      method: 'POST',
      headers: { authorization, traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` },
      body: new URLSearchParams({ identity_verification_id: id }),
    });
    expect(verified.status).toBeGreaterThanOrEqual(400);
    const [asked] = portone.requests.filter((request) => request.path.startsWith('/identity-verifications/'));
    const [, trace, parent] = TRACEPARENT.exec(asked?.traceparent ?? '') ?? [];
    expect(trace).toBe(CALLER_TRACE);
    const spans = await collector.until((all) => all.some((span) => span.spanId === parent));
    const client = spans.find((span) => span.spanId === parent);
    expect(client).toMatchObject({ traceId: CALLER_TRACE, kind: 3 });
    const lookUp = spans.find((span) => span.spanId === client?.parentSpanId);
    expect(lookUp).toMatchObject({ name: 'portone identity-verification', traceId: CALLER_TRACE });
  });

  it("sends a text message under the caller's trace, as an `sms send` span", async () => {
    const response = await fetch(`${service.url}/v1/user/phone`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiToken}`, traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` },
      body: new URLSearchParams({ phone: '010-2345-6789', current_password: account.password }),
    });
    expect(response.status).toBe(200);
    const spans = await collector.until((all) => named(all, 'sms send').length > 0);
    expect(named(spans, 'sms send')).toEqual([
      expect.objectContaining({
        traceId: CALLER_TRACE,
        attributes: { 'sms.provider': 'solapi', 'sms.kind': expect.any(String) },
      }),
    ]);
    // The span covers the gateway's answer: the fake has the message, never the number in the span.
    expect(solapi.messages.map((message) => message.to)).toEqual(['01023456789']);
    expect(JSON.stringify(named(spans, 'sms send'))).not.toContain('2345');
  });

  it('starts a trace of its own for a caller that sends none, and none for a health check', async () => {
    expect((await fetch(`${service.url}/healthz`)).status).toBe(200);
    const response = await fetch(`${service.url}/v1/auth/login/email`, {
      method: 'POST',
      body: new URLSearchParams({ email: account.email, password: account.password }),
    });
    expect(response.status).toBe(200);
    const spans = await collector.until((all) =>
      named(all, 'request').some((span) => span.attributes['http.route'] === '/v1/auth/login/email'),
    );
    const request = named(spans, 'request').find(
      (span) => span.attributes['http.route'] === '/v1/auth/login/email',
    );
    expect(request?.parentSpanId).toBe('');
    expect(request?.traceId).not.toBe(CALLER_TRACE);
    const trace = collector.trace(request?.traceId ?? '');
    expect(named(trace, 'password verify')).toHaveLength(1);
    expect(trace.some((span) => span.name === 'db SELECT')).toBe(true);
    // The health check came first: its span, had it one, would have been exported by now.
    expect(spans.filter((span) => span.attributes['url.path'] === '/healthz')).toEqual([]);
  });

  it('makes no span of a request the sampler leaves out, and records what its caller sampled', async () => {
    // Restarted with traces that start here never recorded (the last test: the service is this one's now).
    // Named apart: the last spans of the service before it may still be arriving, and the new one may deliver
    // webhooks of its events, in their traces.
    await service.stop();
    service = await startService({
      ...store.env,
      OTEL_SERVICE_NAME: 'accounts-e2e-sampled',
      OTEL_TRACES_SAMPLER: 'parentbased_always_off',
    });
    const earlierTraces = new Set(collector.spans.map((span) => span.traceId));
    const authorization = `Bearer ${apiToken}`;
    const leftOut = await fetch(`${service.url}/v1/user/get`, {
      headers: { authorization, 'x-request-id': 'left-out-get' },
    });
    expect(leftOut.status).toBe(200);
    const login = await fetch(`${service.url}/v1/auth/login/email`, {
      method: 'POST',
      headers: { 'x-request-id': 'left-out-login' },
      body: new URLSearchParams({ email: account.email, password: account.password }),
    });
    expect(login.status).toBe(200);
    const kept = '1f1e1d1c1b1a19181716151413121110';
    const traced = await fetch(`${service.url}/v1/user/get`, {
      headers: { authorization, traceparent: `00-${kept}-${CALLER_SPAN}-01`, 'x-request-id': 'kept-get' },
    });
    expect(traced.status).toBe(200);
    await collector.until((all) => all.some((span) => span.traceId === kept && span.name === 'request'));
    // Spans leave in the order they end: those of the two requests before, had they any, would be in. A trace
    // either left out would have started is none of the earlier ones.
    const started = collector.spans
      .filter((span) => span.service === 'accounts-e2e-sampled' && !earlierTraces.has(span.traceId))
      .map((span) => span.traceId);
    expect(new Set(started)).toEqual(new Set([kept]));
    const [request] = named(collector.trace(kept), 'request');
    expect(request).toMatchObject({
      parentSpanId: CALLER_SPAN,
      attributes: { 'http.route': '/v1/user/get' },
    });
    expect(named(collector.trace(kept), 'db SELECT')[0]?.parentSpanId).toBe(request?.spanId);

    // A line of a request left out names no trace (there is none to find); the caller's request's does.
    const accessLine = (output: string, id: string) =>
      output
        .split('\n')
        .filter((line) => line.includes(`"reqId":"${id}"`))
        .map((line) => JSON.parse(line) as { msg: string; trace_id?: string })
        .find((line) => line.msg === 'request completed');
    const output = await service.untilOutput((written) => accessLine(written, 'kept-get') !== undefined);
    expect(accessLine(output, 'left-out-get')).toBeDefined();
    expect(accessLine(output, 'left-out-get')?.trace_id).toBeUndefined();
    expect(accessLine(output, 'left-out-login')?.trace_id).toBeUndefined();
    expect(accessLine(output, 'kept-get')?.trace_id).toBe(kept);
  });
});
