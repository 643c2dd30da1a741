import type { GatewayBundle } from '@toolgate/contract';
import type { HostedTool } from '@toolgate/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateBundle } from '../../../gateway/src/bundle/validate-bundle.ts';
import { readStatus, startTestApi, type TestApi } from '../testing/test-api.ts';

/** HostedTool as a kind: operators apply it, the API refuses what a gateway could not run safely. */

const P = '/apis/toolgate.dev/v1/hostedtools';
const GATEWAY = 'hosted-edge';

let api: TestApi;
let gatewayToken: string;
let auditor: string;

beforeAll(async () => {
  api = await startTestApi();
  gatewayToken = (await api.identity(`${GATEWAY}-identity`, ['gateway'])).token;
  auditor = (await api.identity('hosted-auditor', ['auditor'])).token;
  await api.operator.call('gateways.create', {
    body: {
      apiVersion: 'toolgate.dev/v1',
      kind: 'Gateway',
      metadata: { name: GATEWAY },
      spec: { identity: `${GATEWAY}-identity` },
    },
  });
});
afterAll(() => api?.close());

function hostedTool(name: string, toolName: string, spec: Record<string, unknown> = {}) {
  return {
    apiVersion: 'toolgate.dev/v1',
    kind: 'HostedTool',
    metadata: { name },
    spec: {
      tool: {
        name: toolName,
        description: 'Search the web through the approved backend.',
        parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
      },
      endpoint: {
        url: 'https://search.internal.example/v1/search',
        headers: [{ name: 'Authorization', secretRef: { env: 'SEARCH_TOKEN' } }],
      },
      ...spec,
    },
  };
}

function post(body: unknown, { token = api.operatorToken, query = '' } = {}) {
  return api.fetch(`${P}${query}`, { method: 'POST', token, body: JSON.stringify(body) });
}

async function created(body: unknown): Promise<HostedTool> {
  const response = await post(body);
  expect(response.status, await response.clone().text()).toBe(201);
  return (await response.json()) as HostedTool;
}

async function remove(name: string) {
  const response = await api.fetch(`${P}/${name}`, { method: 'DELETE', token: api.operatorToken });
  expect(response.status).toBe(200);
}

async function bundle(etag?: string, wait?: number) {
  return api.fetch(
    `/apis/toolgate.dev/v1/gateways/${GATEWAY}/bundle${wait ? `?wait=${wait}` : ''}`,
    {
      token: gatewayToken,
      headers: etag ? { 'if-none-match': etag } : {},
    },
  );
}

/** The bundle once it differs from `etag` (a long-poll, as a gateway asks). */
async function nextBundle(etag: string): Promise<{ raw: GatewayBundle; etag: string }> {
  const response = await bundle(etag, 10);
  expect(response.status).toBe(200);
  return {
    raw: (await response.json()) as GatewayBundle,
    etag: response.headers.get('etag') as string,
  };
}

describe('the gateway bundle', () => {
  it('has no hostedTools without hosted tools, then every one by name, then none again', async () => {
    const response = await bundle();
    const etag0 = response.headers.get('etag') as string;
    const before = (await response.json()) as Record<string, unknown>;
    expect(before).not.toHaveProperty('hostedTools');

    await created(hostedTool('zeta-search', 'zeta_search'));
    let next = await nextBundle(etag0);
    await created(hostedTool('alpha-search', 'alpha_search', { redact: ['debug.token'] }));
    next = await nextBundle(next.etag);
    expect(next.raw.hostedTools?.map((tool) => tool.name)).toEqual(['alpha-search', 'zeta-search']);
    expect(next.raw.hostedTools?.[0]).toEqual({
      name: 'alpha-search',
      spec: {
        tool: {
          name: 'alpha_search',
          description: 'Search the web through the approved backend.',
          parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
        },
        // The defaults as the API filled them in: the gateway runs exactly this.
        endpoint: {
          url: 'https://search.internal.example/v1/search',
          headers: [{ name: 'Authorization', secretRef: { env: 'SEARCH_TOKEN' } }],
          timeout: '10s',
          retries: 0,
          maxResponseBytes: 262144,
        },
        redact: ['debug.token'],
      },
    });
    // The gateway's own validation accepts the bundle and reads the tools.
    const valid = validateBundle(next.raw, next.etag.replaceAll('"', ''), GATEWAY);
    expect(valid.bundle.hostedTools?.map((tool) => tool.spec.tool.name)).toEqual([
      'alpha_search',
      'zeta_search',
    ]);

    await remove('zeta-search');
    next = await nextBundle(next.etag);
    await remove('alpha-search');
    next = await nextBundle(next.etag);
    expect(next.raw).not.toHaveProperty('hostedTools');
    // Without hosted tools the bundle is the one it was: its ETag too.
    expect(next.etag).toBe(etag0);
  });
});

describe('HostedTool objects', () => {
  it('is applied, dry-run, read, listed, watched and replaced like every kind', async () => {
    const list = await api.operator.call('hostedTools.list', {});
    const controller = new AbortController();
    const watch = await api.fetch(
      `${P}?watch=true&resourceVersion=${list.metadata.resourceVersion}`,
      {
        token: auditor,
        signal: controller.signal,
      },
    );
    expect(watch.status).toBe(200);

    const dry = await post(hostedTool('web-search', 'web_search'), { query: '?dryRun=All' });
    expect(dry.status).toBe(201);
    expect((await api.fetch(`${P}/web-search`, { token: auditor })).status).toBe(404);

    const object = await created(hostedTool('web-search', 'web_search'));
    expect(object.metadata.generation).toBe(1);
    const read = await api.fetch(`${P}/web-search`, { token: auditor });
    expect(read.status).toBe(200);
    const replaced = await api.fetch(`${P}/web-search`, {
      method: 'PUT',
      token: api.operatorToken,
      body: JSON.stringify({
        ...object,
        spec: { ...object.spec, endpoint: { ...object.spec.endpoint, timeout: '3s', retries: 2 } },
      }),
    });
    expect(replaced.status, await replaced.clone().text()).toBe(200);
    const after = (await replaced.json()) as HostedTool;
    expect(after.metadata.generation).toBe(2);
    expect(after.spec.endpoint).toMatchObject({ timeout: '3s', retries: 2 });
    const listed = await api.operator.call('hostedTools.list', {});
    expect(listed.items.map((item) => item.metadata.name)).toContain('web-search');

    const reader = watch.body?.getReader() as ReadableStreamDefaultReader<Uint8Array>;
    const events: Array<{ type: string; object: HostedTool }> = [];
    let buffer = '';
    const deadline = setTimeout(() => controller.abort(), 8000);
    while (events.length < 2) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += new TextDecoder().decode(value);
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      for (const line of lines) if (line) events.push(JSON.parse(line));
    }
    clearTimeout(deadline);
    controller.abort();
    expect(events.map((event) => [event.type, event.object.metadata.name])).toEqual([
      ['ADDED', 'web-search'],
      ['MODIFIED', 'web-search'],
    ]);
    await remove('web-search');
  });

  it.each([
    [
      'a credential as a plain header value',
      {
        endpoint: { url: 'https://x.example/', headers: [{ name: 'X-Api-Key', value: 'abcdef' }] },
      },
      'spec.endpoint.headers[0].value',
    ],
    [
      'a token-shaped value under any header name',
      {
        endpoint: {
          url: 'https://x.example/',
          headers: [{ name: 'X-Upstream', value: ['ghp', 'A'.repeat(36)].join('_') }],
        },
      },
      'spec.endpoint.headers[0].value',
    ],
    [
      'the cloud metadata service',
      { endpoint: { url: 'http://169.254.169.254/latest/meta-data/' } },
      'spec.endpoint.url',
    ],
    [
      'a metadata host name',
      { endpoint: { url: 'http://metadata.google.internal/computeMetadata/v1/' } },
      'spec.endpoint.url',
    ],
    [
      'an IPv4-mapped link-local address',
      { endpoint: { url: 'http://[::ffff:169.254.169.254]/' } },
      'spec.endpoint.url',
    ],
    [
      'credentials in the URL',
      { endpoint: { url: 'https://u:p@x.example/' } },
      'spec.endpoint.url',
    ],
    [
      'a header the gateway sets',
      {
        endpoint: {
          url: 'https://x.example/',
          headers: [{ name: 'Content-Type', value: 'text/xml' }],
        },
      },
      'spec.endpoint.headers[0].name',
    ],
    [
      'a header given twice',
      {
        endpoint: {
          url: 'https://x.example/',
          headers: [
            { name: 'X-Team', value: 'a' },
            { name: 'x-team', value: 'b' },
          ],
        },
      },
      'spec.endpoint.headers[1].name',
    ],
    [
      'a timeout past 120s',
      { endpoint: { url: 'https://x.example/', timeout: '5m' } },
      'spec.endpoint.timeout',
    ],
    [
      'more than 3 retries',
      { endpoint: { url: 'https://x.example/', retries: 4 } },
      'spec.endpoint.retries',
    ],
    [
      'a response limit past 4 MiB',
      { endpoint: { url: 'https://x.example/', maxResponseBytes: 5 * 1024 * 1024 } },
      'spec.endpoint.maxResponseBytes',
    ],
    [
      'a non-object arguments schema',
      { tool: { name: 'web_search', description: 'x', parameters: { type: 'string' } } },
      'spec.tool.parameters.type',
    ],
    [
      "the gateway's own tool name",
      { tool: { name: 'tool_info', description: 'x' } },
      'spec.tool.name',
    ],
    [
      'a name the model cannot call',
      { tool: { name: 'web search', description: 'x' } },
      'spec.tool.name',
    ],
  ])('refuses %s, naming the field', async (_what, spec, field) => {
    const response = await post(hostedTool('bad-tool', 'web_search', spec));
    expect(response.status).toBe(422);
    const status = await readStatus(response);
    expect(status.details?.causes?.map((cause) => cause.field)).toContain(field);
    expect(JSON.stringify(status)).not.toContain('A'.repeat(36));
    expect((await api.fetch(`${P}/bad-tool`, { token: auditor })).status).toBe(404);
  });

  it('refuses a second HostedTool with the same tool name, naming the first', async () => {
    await created(hostedTool('search-one', 'shared_search'));
    const response = await post(hostedTool('search-two', 'shared_search'));
    expect(response.status).toBe(422);
    const status = await readStatus(response);
    expect(status.details?.causes).toEqual([
      {
        field: 'spec.tool.name',
        message: 'shared_search is already the tool of HostedTool "search-one"',
      },
    ]);
    // Its own name again is no conflict: a replace keeps it.
    const own = (await (
      await api.fetch(`${P}/search-one`, { token: auditor })
    ).json()) as HostedTool;
    const replaced = await api.fetch(`${P}/search-one`, {
      method: 'PUT',
      token: api.operatorToken,
      body: JSON.stringify({ ...own, spec: { ...own.spec, description: 'again' } }),
    });
    expect(replaced.status).toBe(200);
    await remove('search-one');
  });

  it('lets auditors read but only operators write; gateways read it from their bundle only', async () => {
    expect((await post(hostedTool('by-auditor', 'by_auditor'), { token: auditor })).status).toBe(
      403,
    );
    expect((await post(hostedTool('by-gw', 'by_gw'), { token: gatewayToken })).status).toBe(403);
    expect((await api.fetch(P, { token: gatewayToken })).status).toBe(403);
    expect((await api.fetch(P, { token: auditor })).status).toBe(200);
  });

  it('has no status route', async () => {
    await created(hostedTool('no-status', 'no_status'));
    const response = await api.fetch(`${P}/no-status/status`, {
      method: 'PUT',
      token: api.operatorToken,
      body: JSON.stringify({ status: { conditions: [] } }),
    });
    expect(response.status).toBe(404);
    await remove('no-status');
  });
});
