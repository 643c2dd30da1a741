import { randomBytes } from 'node:crypto';
import { type Tracing, tracingFromEnv } from '@toolgate/telemetry';
import { type OtlpReceiver, SPAN_KIND, startOtlpReceiver } from '@toolgate/telemetry/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiEnv } from '../env.ts';
import { startTestApi, type TestApi } from '../testing/test-api.ts';

/**
 * The API with tracing on (OTEL_* as main.ts reads them, exporting over OTLP http/json to a
 * receiver this test runs): a SERVER span per request under the caller's traceparent, named by
 * its route, refusals included, with neither a token nor a query in any export.
 */

let receiver: OtlpReceiver;
let tracing: Tracing;
let api: TestApi;

const hex = (bytes: number) => randomBytes(bytes).toString('hex');
function traceparent() {
  const traceId = hex(16);
  const spanId = hex(8);
  return { traceId, spanId, header: `00-${traceId}-${spanId}-01` };
}
const WRONG_TOKEN = `tg_${randomBytes(32).toString('base64url').slice(0, 43)}`;
const QUERY_SECRET = `query-secret-${hex(8)}`;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  const env = ApiEnv.parse({
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_BSP_SCHEDULE_DELAY: '20',
  });
  const started = await tracingFromEnv(env, { name: 'toolgate-api', version: 'test' });
  if (started === undefined) throw new Error('tracing is off');
  tracing = started;
  api = await startTestApi({}, { tracer: tracing.tracer });
});
afterAll(async () => {
  await api?.close();
  await tracing?.shutdown();
  await receiver?.close();
});

async function spanOf(traceId: string) {
  const spans = await receiver.waitFor((all) => all.some((s) => s.traceId === traceId));
  return spans.find((s) => s.traceId === traceId);
}

describe('API request spans', () => {
  it('one per request, under the caller’s traceparent, named by the route', async () => {
    const caller = traceparent();
    const response = await api.fetch('/apis/toolgate.dev/v1/whoami', {
      token: api.operatorToken,
      headers: { traceparent: caller.header },
    });
    expect(response.status).toBe(200);
    const span = await spanOf(caller.traceId);
    expect(span).toMatchObject({
      name: 'GET /apis/toolgate.dev/v1/whoami',
      kind: SPAN_KIND.server,
      parentSpanId: caller.spanId,
      attributes: {
        'http.request.method': 'GET',
        'http.route': '/apis/toolgate.dev/v1/whoami',
        'http.response.status_code': 200,
        'url.path': '/apis/toolgate.dev/v1/whoami',
        'toolgate.route': 'tokens.whoami',
      },
      resource: expect.objectContaining({ 'service.name': 'toolgate-api' }),
      status: { code: 0 },
    });
  });

  it('a refusal of the access check has its span; a route’s template, not its values, names it', async () => {
    const caller = traceparent();
    const response = await api.fetch(
      `/apis/toolgate.dev/v1/mediationpolicies/some-policy?token=${QUERY_SECRET}`,
      { token: WRONG_TOKEN, headers: { traceparent: caller.header } },
    );
    expect(response.status).toBe(401);
    const span = await spanOf(caller.traceId);
    expect(span?.name).toBe('GET /apis/toolgate.dev/v1/mediationpolicies/:name');
    expect(span?.attributes).toMatchObject({
      'http.response.status_code': 401,
      'url.path': '/apis/toolgate.dev/v1/mediationpolicies/some-policy',
    });
  });

  it('a path that matches no route: the method alone names it', async () => {
    const caller = traceparent();
    const response = await api.fetch('/no/such/route', { headers: { traceparent: caller.header } });
    expect(response.status).toBe(404);
    const span = await spanOf(caller.traceId);
    expect(span?.name).toBe('GET');
    expect(span?.attributes['http.route']).toBeUndefined();
    expect(span?.attributes['http.response.status_code']).toBe(404);
  });

  it('a request without a traceparent starts a trace of its own', async () => {
    receiver.clear();
    expect((await api.fetch('/healthz')).status).toBe(200);
    const [span] = await receiver.waitFor((all) => all.some((s) => s.name === 'GET /healthz'));
    expect(span?.parentSpanId).toBeUndefined();
  });

  it('exports no token, no query and no header', async () => {
    await api.fetch('/apis/toolgate.dev/v1/whoami', { token: api.operatorToken });
    await tracing.flush();
    const everything = receiver.everything();
    expect(everything).toContain('http.route');
    for (const secret of [api.operatorToken, WRONG_TOKEN, QUERY_SECRET]) {
      expect(everything).not.toContain(secret);
    }
    expect(everything).not.toMatch(/authorization|bearer/i);
  });
});
