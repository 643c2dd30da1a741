import { createHash, randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SpoolFailedError } from './spool/errors.ts';
import { startTestGateway, type TestGateway } from './testing/test-gateway.ts';

const fn = (name: string) => ({
  type: 'function' as const,
  function: { name, description: `${name} tool`, parameters: { type: 'object', properties: {} } },
});
const say = (value: object) => `mock: ${JSON.stringify(value)}`;

describe('readiness and metrics', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway();
  });
  afterAll(() => gw.close());

  it('is not ready, and refuses agents, until a valid bundle is active', async () => {
    expect((await fetch(`${gw.url}/readyz`)).status).toBe(503);
    expect((await fetch(`${gw.url}/healthz`)).status).toBe(200);
    const refused = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', messages: [] }),
    });
    expect(refused.status).toBe(503);
    await gw.applyPolicies([]);
    expect((await fetch(`${gw.url}/readyz`)).status).toBe(200);
  });

  it('exposes Prometheus metrics that count requests and blocked calls', async () => {
    await gw.applyPolicies([
      { name: 'p', spec: { rules: [{ id: 'h', action: 'hide', match: { name: 'secret' } }] } },
    ]);
    const openai = new OpenAI({
      baseURL: `${gw.url}/v1`,
      apiKey: 'sk-FAKE-metrics',
      maxRetries: 0,
    });
    await openai.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: say({ call: 'secret', arguments: {} }) }],
      tools: [fn('secret'), fn('open')],
    });
    const text = await (await fetch(`${gw.url}/metrics`)).text();
    expect(text).toMatch(
      /toolgate_gateway_requests_total\{surface="openai-chat",status="200"\} \d+/,
    );
    expect(text).toMatch(/toolgate_gateway_blocked_tool_calls_total\{surface="openai-chat"\} 1/);
    expect(text).toContain('toolgate_gateway_upstream_seconds_bucket');
    expect(text).toContain('toolgate_gateway_mediation_seconds_bucket');
    expect(text).not.toContain('sk-FAKE-metrics');
  });
});

describe('keep-alive', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway();
    await gw.applyPolicies([]);
  });
  afterAll(() => gw.close());

  it('keeps an idle agent connection open past Node’s default (5 s, closed at 6), so the client closes first', async () => {
    const { port } = new URL(gw.url);
    const socket = connect(Number(port), '127.0.0.1');
    const answers: string[] = [];
    let buffered = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      // Each answer is a complete JSON body with a Content-Length: split on the status line.
      const parts = buffered.split(/(?=HTTP\/1\.1 )/);
      buffered = parts.pop() ?? '';
      answers.push(...parts);
    });
    const closed = new Promise<boolean>((resolve) => socket.on('close', () => resolve(true)));
    const body = JSON.stringify({ model: 'm' });
    const request = `POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`;
    socket.write(request);
    await new Promise((resolve) => setTimeout(resolve, 6_500));
    socket.write(request);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const all = [...answers, buffered];
    socket.end();
    await closed;
    expect(all.filter((a) => a.startsWith('HTTP/1.1 400'))).toHaveLength(2);
    expect(all[0]).toMatch(/\r\nkeep-alive: timeout=72\r\n/i);
  });
});

describe('identity binding and replacement', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway();
  });
  afterAll(() => gw.close());
  afterEach(() => gw.mock.requests.clear());

  it('refuses identities no token proves when a policy says so, and records verified bindings', async () => {
    // Built at run time: a secret-shaped value never sits in the source.
    const token = `tg_${randomBytes(32).toString('base64url')}`;
    const sha256 = createHash('sha256').update(token).digest('hex');
    await gw.applyPolicies(
      [{ name: 'strict', spec: { unknownIdentities: 'reject', rules: [] } }],
      [{ name: 'alice', type: 'human', roles: ['agent'], tokens: [{ sha256, expiresAt: null }] }],
    );
    const request = (headers: Record<string, string>) =>
      fetch(`${gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-session-id': 's-1', ...headers },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
      });
    // A header names a known agent, but only a token proves it.
    for (const user of ['mallory', 'alice']) {
      const refused = await request({ 'x-user-id': user });
      expect(refused.status).toBe(403);
      expect(await refused.text()).toContain('identity not proven');
    }
    expect(gw.mock.requests.last(10)).toHaveLength(0);
    const alice = await request({ 'x-toolgate-token': token, 'x-user-id': 'mallory' });
    expect(alice.status).toBe(200);
    const [last] = (await gw.spool.pending(1000)).slice(-1);
    // The token's identity wins; the header's other name is kept beside it.
    expect(last?.receipt.receipt.identity).toEqual({
      human: 'alice',
      session: 's-1',
      binding: 'verified',
      claims: { human: 'mallory' },
    });
  });

  it('puts a replacement in front of the provider and maps its calls back', async () => {
    await gw.applyPolicies([
      {
        name: 'replace',
        spec: {
          rules: [
            {
              id: 'approved-search',
              action: 'replace',
              match: { name: 'web_search' },
              tool: {
                type: 'function',
                function: { name: 'approved_search', description: 'Vetted search.' },
              },
            },
          ],
        },
      },
    ]);
    const openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'sk-FAKE', maxRetries: 0 });
    const completion = await openai.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [
        { role: 'user', content: say({ call: 'approved_search', arguments: { q: 'x' } }) },
      ],
      tools: [fn('web_search')],
    });
    const seen = gw.mock.requests.last(1)[0]?.body as {
      tools: Array<{ function: { name: string } }>;
    };
    expect(seen.tools.map((t) => t.function.name)).toEqual(['approved_search']);
    const call = completion.choices[0]?.message.tool_calls?.[0];
    expect(call?.type === 'function' && call.function.name).toBe('web_search');
  });
});

describe('a full spool', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    // Room for one small receipt (the first carries its tool set too), not for two.
    gw = await startTestGateway({ spoolMaxBytes: 1536 });
    await gw.applyPolicies([]);
  });
  afterAll(() => gw.close());

  it('refuses requests (the default loses no receipt) and counts them', async () => {
    const send = () =>
      fetch(`${gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
      });
    expect((await send()).status).toBe(200);
    const refused = await send();
    expect(refused.status).toBe(503);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toContain(
      'spool is full',
    );
    expect(await gw.spool.pending(100)).toHaveLength(1);
    expect(await (await fetch(`${gw.url}/metrics`)).text()).toMatch(
      /toolgate_gateway_spool_rejected_requests_total 1/,
    );
  });
});

describe('a spool that stopped after an I/O error', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({
      recorder: {
        full: () => false,
        record: async () => {
          throw new SpoolFailedError(new Error('EIO: i/o error, fdatasync'));
        },
      },
    });
    await gw.applyPolicies([]);
  });
  afterAll(() => gw.close());

  it('answers 503 in the provider format, never a 500 and never without a receipt', async () => {
    const response = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({
      error: { message: expect.stringContaining('cannot record receipts') },
    });
  });
});
