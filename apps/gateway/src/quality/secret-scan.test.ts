import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { statusOf } from '@toolgate/contract';
import { until } from '@toolgate/core/testing';
import { createPrismaClient, type PrismaClient } from '@toolgate/db';
import { createMockProvider, type MockProvider } from '@toolgate/mock-provider';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordFigures } from '../../../../scripts/reliability/figures.ts';
import { createLogger } from '../../../api/src/logger.ts';
import { startTestApi, type TestApi } from '../../../api/src/testing/test-api.ts';
import {
  hideRule,
  openAITools,
  policyObject,
  registerGateway,
  storedReceipt,
  storedReceiptIds,
  untilSynced,
} from '../faults/control-plane.ts';
import { type FaultProxy, startFaultProxy } from '../faults/fault-proxy.ts';
import { readMetric } from '../faults/metrics.ts';
import { type GatewayProcess, killAllGateways, startGateway } from '../faults/processes.ts';

/**
 * SPEC §3 "secrets never enter a receipt, a log line or an error", end to end: traffic through
 * a gateway process to the real API and PostgreSQL carries recognisable (fake) credentials — the
 * agent's provider keys in `Authorization`, `x-api-key`, `x-goog-api-key` and Gemini's `?key=`
 * URL parameter (on routes served, refused and missed), the gateway's own upstream key, an
 * agent's Toolgate token, and cloud, GitHub and Slack tokens in messages, in tool-call arguments
 * (JSON and streamed) and in provider errors that echo them. Afterwards every place Toolgate
 * keeps anything is searched: every table of the database (each row as text), the API's and the
 * gateway's complete logs (debug level), every file in the gateway's data directory (spool
 * segments while they still hold the receipts, acks, bundle, quarantine), the stored receipts
 * and `/metrics`. Nothing may be found. Message content is not stored in receipts by design;
 * tool-call arguments are stored as a hash.
 */

const SOURCE = 'apps/gateway/src/quality/secret-scan.test.ts';
const GATEWAY = 'edge-secrets';
const LABELS = { env: 'secrets' };

/** Fake credentials of recognisable shapes, unique to this run; built, never literal. */
const random = (bytes: number) => randomBytes(bytes).toString('hex');
const SECRETS = {
  openaiAgentKey: `${'sk-'}proj-${random(20)}`,
  anthropicAgentKey: `${'sk-'}ant-api03-${random(20)}`,
  geminiAgentKey: `${'AIza'}${random(17)}x`,
  gatewayAnthropicKey: `${'sk-'}ant-api03-${random(20)}`,
  awsKey: `${'AKIA'}${random(8).toUpperCase()}`,
  githubToken: `${'ghp_'}${random(18)}`,
  slackToken: `${'xoxb-'}${random(6)}-${random(8)}`,
  password: `${'hunter2-'}${random(10)}`,
  // The agent's Toolgate token (issued in beforeAll).
  toolgateToken: '',
};
type SecretName = keyof typeof SECRETS;

let api: TestApi;
let apiLog = '';
let proxy: FaultProxy;
let openaiMock: MockProvider;
let anthropicMock: MockProvider;
let geminiMock: MockProvider;
let dataDir: string;
let gatewayLog: string;
let gateway: GatewayProcess;
let db: PrismaClient;
let receiptsBlocked = false;

beforeAll(async () => {
  const destination = {
    write(line: string) {
      apiLog += line;
    },
  };
  [api, openaiMock, anthropicMock, geminiMock] = await Promise.all([
    startTestApi({}, { log: createLogger('debug', destination) }),
    // Each mock requires the key the gateway must pass on: a 200 proves it got there.
    createMockProvider({ requireKey: SECRETS.openaiAgentKey }),
    createMockProvider({ requireKey: SECRETS.gatewayAnthropicKey }),
    createMockProvider({ requireKey: SECRETS.geminiAgentKey }),
  ]);
  db = createPrismaClient(api.database.url);
  proxy = await startFaultProxy(api.url);
  proxy.fault = ({ method, url }) =>
    receiptsBlocked && method === 'POST' && /\/receipts(\?|$)/.test(url)
      ? {
          respond: {
            status: 503,
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(statusOf('ServiceUnavailable', 'held by the test')),
          },
        }
      : undefined;
  const token = await registerGateway(api, GATEWAY, LABELS);
  await api.identity('secret-agent', ['agent']);
  const issued = await api.operator.call('tokens.issueToken', {
    params: { name: 'secret-agent' },
    body: { description: 'agent token for the secret scan' },
  });
  SECRETS.toolgateToken = (issued as { token: string }).token;
  await api.operator.call('mediationPolicies.create', {
    body: {
      ...policyObject('scan', LABELS, [hideRule('hide-deletes', 'delete_repo')]),
      spec: {
        selector: { matchLabels: LABELS },
        rules: [hideRule('hide-deletes', 'delete_repo')],
        redact: ['token'],
      } as never,
    },
  });
  dataDir = await mkdtemp(join(tmpdir(), 'toolgate-secret-scan-'));
  gatewayLog = join(dataDir, 'gateway.log');
  gateway = await startGateway({
    name: GATEWAY,
    apiUrl: proxy.url,
    apiToken: token,
    upstreamUrl: openaiMock.url,
    dataDir: join(dataDir, 'data'),
    logFile: gatewayLog,
    env: {
      LOG_LEVEL: 'debug',
      ANTHROPIC_BASE_URL: anthropicMock.url,
      ANTHROPIC_API_KEY: SECRETS.gatewayAnthropicKey,
      GEMINI_BASE_URL: geminiMock.url,
    },
  });
  await untilSynced(api, GATEWAY, 15_000);
});

afterAll(async () => {
  await killAllGateways();
  await db?.$disconnect();
  await proxy?.close();
  await Promise.all([
    api?.close(),
    openaiMock?.close(),
    anthropicMock?.close(),
    geminiMock?.close(),
  ]);
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** Text that mentions several secrets, as an agent's user might paste them. */
function leakyText(): string {
  return (
    `deploy with AWS key ${SECRETS.awsKey}, GitHub token ${SECRETS.githubToken}, ` +
    `slack ${SECRETS.slackToken}, password: ${SECRETS.password}`
  );
}

async function traffic(): Promise<string[]> {
  const ids: string[] = [];
  const openai = new OpenAI({
    apiKey: SECRETS.openaiAgentKey,
    baseURL: `${gateway.url}/v1`,
    maxRetries: 0,
    defaultHeaders: { 'x-toolgate-token': SECRETS.toolgateToken, 'x-user-id': 'secret-agent' },
  });
  const tools = openAITools(['search_code', 'delete_repo', 'deploy']);
  const callWithSecrets = {
    call: 'deploy',
    arguments: { repo: 'acme/app', token: SECRETS.githubToken, aws: SECRETS.awsKey },
  };
  // Secrets in the user's message, and in the tool call the provider answers with.
  for (const stream of [false, true]) {
    const script = `mock: ${JSON.stringify(callWithSecrets)}`;
    const request = {
      model: 'gpt-4o-mini',
      messages: [
        { role: 'system' as const, content: leakyText() },
        { role: 'user' as const, content: script },
      ],
      tools,
    };
    if (stream) {
      const { data, response } = await openai.chat.completions
        .create({ ...request, stream: true })
        .withResponse();
      let args = '';
      for await (const chunk of data) {
        args += chunk.choices[0]?.delta.tool_calls?.[0]?.function?.arguments ?? '';
      }
      expect(args).toContain(SECRETS.githubToken); // the agent gets its call, secrets and all
      ids.push(response.headers.get('x-toolgate-receipt-id') as string);
    } else {
      const { data, response } = await openai.chat.completions.create(request).withResponse();
      const call = data.choices[0]?.message.tool_calls?.[0];
      expect(call?.type === 'function' && call.function.arguments).toContain(SECRETS.awsKey);
      ids.push(response.headers.get('x-toolgate-receipt-id') as string);
    }
  }
  // The agent sends the call's result back, secrets included, in the conversation.
  const followUp = await openai.chat.completions
    .create({
      model: 'gpt-4o-mini',
      messages: [
        { role: 'user', content: 'deploy it' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'call_1',
              type: 'function',
              function: { name: 'deploy', arguments: JSON.stringify(callWithSecrets.arguments) },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: leakyText() },
      ],
      tools,
    })
    .withResponse();
  ids.push(followUp.response.headers.get('x-toolgate-receipt-id') as string);

  // Provider errors that echo credentials back (a real provider masks them; this one does not).
  for (const echoed of [SECRETS.openaiAgentKey, SECRETS.githubToken, SECRETS.slackToken]) {
    const script = { error: { status: 401, message: `Incorrect API key provided: ${echoed}` } };
    const error = await openai.chat.completions
      .create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: `mock: ${JSON.stringify(script)}` }],
        tools,
      })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(OpenAI.APIError);
    ids.push(
      (error as InstanceType<typeof OpenAI.APIError>).headers?.get(
        'x-toolgate-receipt-id',
      ) as string,
    );
  }

  // Anthropic: the agent's own key (the gateway's replaces it upstream), secrets in the
  // message and in a tool_use block, streamed and not.
  const anthropic = new Anthropic({
    apiKey: SECRETS.anthropicAgentKey,
    baseURL: gateway.url,
    maxRetries: 0,
  });
  const anthropicTools = [
    { name: 'deploy', input_schema: { type: 'object' as const, properties: {} } },
  ];
  for (const stream of [false, true]) {
    const body = {
      model: 'mock-claude',
      max_tokens: 100,
      messages: [
        { role: 'user' as const, content: `${leakyText()}` },
        { role: 'assistant' as const, content: 'noted' },
        { role: 'user' as const, content: `mock: ${JSON.stringify(callWithSecrets)}` },
      ],
      tools: anthropicTools,
    };
    if (stream) {
      const { data, response } = await anthropic.messages
        .create({ ...body, stream: true })
        .withResponse();
      for await (const _event of data) {
        // drain
      }
      ids.push(response.headers.get('x-toolgate-receipt-id') as string);
    } else {
      const { data, response } = await anthropic.messages.create(body).withResponse();
      expect(JSON.stringify(data.content)).toContain(SECRETS.githubToken);
      ids.push(response.headers.get('x-toolgate-receipt-id') as string);
    }
  }
  ids.push(...(await geminiTraffic(callWithSecrets)));
  // OpenAI Responses: an MCP tool's credentials in the request body (sent upstream, never
  // kept), secrets in a call's arguments (streamed and not) and in a function_call_output.
  const mcp = {
    type: 'mcp' as const,
    server_label: 'github',
    server_url: `https://mcp.example.com/sse?token=${SECRETS.slackToken}`,
    authorization: SECRETS.githubToken,
    headers: { 'X-Api-Key': SECRETS.password },
    require_approval: 'never' as const,
  };
  const responsesTools = [
    ...['deploy', 'delete_repo'].map((name) => ({
      type: 'function' as const,
      name,
      parameters: { type: 'object', properties: {} },
      strict: false,
    })),
    mcp,
  ];
  for (const stream of [false, true]) {
    const params = {
      model: 'gpt-4.1-mini',
      instructions: leakyText(),
      input: `mock: ${JSON.stringify(callWithSecrets)}`,
      tools: responsesTools,
    };
    if (stream) {
      const { data, response } = await openai.responses
        .create({ ...params, stream: true })
        .withResponse();
      for await (const _event of data) {
        // drain
      }
      ids.push(response.headers.get('x-toolgate-receipt-id') as string);
    } else {
      const { data, response } = await openai.responses.create(params).withResponse();
      expect(JSON.stringify(data.output)).toContain(SECRETS.awsKey);
      ids.push(response.headers.get('x-toolgate-receipt-id') as string);
    }
  }
  const result = await openai.responses
    .create({
      model: 'gpt-4.1-mini',
      tools: responsesTools,
      input: [
        { role: 'user', content: 'deploy it' },
        {
          type: 'function_call',
          call_id: 'call_r1',
          name: 'deploy',
          arguments: JSON.stringify(callWithSecrets.arguments),
        },
        { type: 'function_call_output', call_id: 'call_r1', output: leakyText() },
      ],
    })
    .withResponse();
  ids.push(result.response.headers.get('x-toolgate-receipt-id') as string);
  // The provider got the MCP tool's credentials: the agent's request, unchanged, went on.
  expect(JSON.stringify(openaiMock.requests.last(1)[0]?.body)).toContain(SECRETS.githubToken);

  // A request the gateway refuses (malformed) with a key in it: logged as refused, key not.
  const refused = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${SECRETS.openaiAgentKey}`,
    },
    body: `{"model": "${SECRETS.password}", "messages": [`,
  });
  expect(refused.status).toBe(400);
  for (const id of ids) expect(id).toMatch(/^rcpt_/);
  return ids;
}

/**
 * Gemini: the agent's key in `x-goog-api-key` (the SDK) and in the URL (`?key=`), secrets in the
 * conversation and in the function call answered, streamed and not; requests refused and routes
 * missed with the key in their URL; a provider error echoing the key.
 */
async function geminiTraffic(callWithSecrets: object): Promise<string[]> {
  const ids: string[] = [];
  const gemini = new GoogleGenAI({
    apiKey: SECRETS.geminiAgentKey,
    httpOptions: { baseUrl: gateway.url, headers: { 'x-user-id': 'secret-agent' } },
  });
  const request = {
    model: 'gemini-2.5-flash',
    contents: [
      { role: 'user', parts: [{ text: leakyText() }] },
      { role: 'model', parts: [{ text: 'noted' }] },
      { role: 'user', parts: [{ text: `mock: ${JSON.stringify(callWithSecrets)}` }] },
    ],
    config: { tools: [{ functionDeclarations: [{ name: 'deploy' }, { name: 'delete_repo' }] }] },
  };
  const answer = await gemini.models.generateContent(request);
  expect(JSON.stringify(answer.functionCalls)).toContain(SECRETS.githubToken);
  ids.push(answer.sdkHttpResponse?.headers?.['x-toolgate-receipt-id'] as string);
  const chunks = [];
  for await (const chunk of await gemini.models.generateContentStream(request)) chunks.push(chunk);
  ids.push(chunks[0]?.sdkHttpResponse?.headers?.['x-toolgate-receipt-id'] as string);
  const keyed = `key=${SECRETS.geminiAgentKey}`;
  const viaQuery = await fetch(
    `${gateway.url}/v1beta/models/gemini-2.5-flash:generateContent?${keyed}`,
    {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ contents: request.contents }),
    },
  );
  expect(viaQuery.status).toBe(200);
  ids.push(viaQuery.headers.get('x-toolgate-receipt-id') as string);
  for (const [path, status] of [
    [`/v1beta/models/gemini-2.5-flash:countTokens?${keyed}`, 404],
    [`/v1beta/models/gemini-2.5-flash:streamGenerateContent?${keyed}`, 400],
  ] as const) {
    const refused = await fetch(gateway.url + path, { method: 'POST', body: '{"contents": [' });
    expect(refused.status).toBe(status);
  }
  expect((await fetch(`${gateway.url}/v1beta/models?${keyed}`)).status).toBe(404);
  const echo = { error: { status: 400, message: `API key not valid: ${SECRETS.geminiAgentKey}` } };
  const failed = await fetch(
    `${gateway.url}/v1beta/models/gemini-2.5-flash:generateContent?${keyed}`,
    {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ parts: [{ text: `mock: ${JSON.stringify(echo)}` }] }] }),
    },
  );
  expect(failed.status).toBe(400);
  expect(await failed.text()).toContain('API key not valid: [REDACTED]');
  ids.push(failed.headers.get('x-toolgate-receipt-id') as string);
  return ids;
}

interface Hit {
  secret: SecretName;
  where: string;
}

/** The secrets, and a distinctive piece of each (a mangled copy would still be found). */
function needles(): Array<[SecretName, string]> {
  return (Object.entries(SECRETS) as Array<[SecretName, string]>).flatMap(([name, value]) => [
    [name, value] as [SecretName, string],
    [name, value.slice(-16)] as [SecretName, string],
  ]);
}

function search(text: string, where: string): Hit[] {
  const hits: Hit[] = [];
  for (const [secret, needle] of needles()) {
    if (text.includes(needle)) hits.push({ secret, where });
  }
  return hits;
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

async function scanFiles(dir: string, label: string): Promise<{ hits: Hit[]; files: number }> {
  const files = await filesUnder(dir);
  const hits: Hit[] = [];
  for (const file of files) {
    const text = (await readFile(file)).toString('latin1');
    hits.push(...search(text, `${label}:${file.slice(dir.length)}`));
  }
  return { hits, files: files.length };
}

async function scanDatabase(): Promise<{ hits: Hit[]; rows: number }> {
  const tables = await db.$queryRawUnsafe<Array<{ name: string }>>(
    `SELECT quote_ident(table_name) AS name FROM information_schema.tables
     WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
  );
  expect(tables.length).toBeGreaterThan(5);
  const hits: Hit[] = [];
  let count = 0;
  for (const { name } of tables) {
    const rows = await db.$queryRawUnsafe<Array<{ row: string }>>(
      `SELECT t::text AS row FROM ${name} t`,
    );
    count += rows.length;
    for (const { row } of rows) hits.push(...search(row, `table ${name}`));
  }
  return { hits, rows: count };
}

describe('secret scan', () => {
  it('finds no planted credential in the database, the logs, the spool or the receipts', async () => {
    // Receipts stay in the spool while the traffic runs, so its files are scanned full.
    receiptsBlocked = true;
    const ids = await traffic();
    const inSpool = await readMetric(gateway.url, 'toolgate_gateway_spool_depth');
    expect(inSpool).toBe(ids.length);
    const spool = await scanFiles(join(dataDir, 'data'), 'gateway data dir (spool full)');
    expect(spool.files).toBeGreaterThan(2);

    receiptsBlocked = false;
    await until(
      async () => (await readMetric(gateway.url, 'toolgate_gateway_spool_depth')) === 0,
      30_000,
      'receipts shipped',
    );
    const stored = await storedReceiptIds(api, GATEWAY);
    expect([...stored].sort()).toEqual([...ids].sort());
    // The traffic went where it should: the provider errors and the tool calls are recorded.
    const receipts = await Promise.all(ids.map((id) => storedReceipt(api, id)));
    const outcomes = receipts.map((r) => r.outcome.status).sort();
    expect(outcomes.filter((s) => s === 401)).toHaveLength(3);
    expect(receipts.some((r) => (r.response?.tool_calls?.length ?? 0) > 0)).toBe(true);
    // The agent's Toolgate token was checked (it bound the identity) and went nowhere else.
    expect(receipts.some((r) => r.identity?.binding === 'verified')).toBe(true);

    const hits: Hit[] = [
      ...spool.hits,
      ...(await scanFiles(join(dataDir, 'data'), 'gateway data dir (drained)')).hits,
      ...search(JSON.stringify(receipts), 'stored receipts (API)'),
      ...search(await readFile(gatewayLog, 'utf8'), 'gateway log'),
      ...search(apiLog, 'API log'),
      ...search(await (await fetch(`${gateway.url}/metrics`)).text(), 'gateway /metrics'),
    ];
    const database = await scanDatabase();
    hits.push(...database.hits);

    // The scan would have found them: the logs are there, and the secrets were really sent.
    expect(apiLog.length).toBeGreaterThan(1000);
    expect((await readFile(gatewayLog, 'utf8')).length).toBeGreaterThan(100);
    expect(database.rows).toBeGreaterThan(ids.length);
    const upstream =
      JSON.stringify(openaiMock.requests.last()) +
      JSON.stringify(anthropicMock.requests.last()) +
      JSON.stringify(geminiMock.requests.last());
    for (const name of ['awsKey', 'githubToken', 'slackToken', 'password'] as const) {
      expect(upstream, `${name} reached the provider`).toContain(SECRETS[name]);
    }

    const places = [
      'database (every table)',
      'API log',
      'gateway log',
      'gateway spool and data dir',
      'receipts',
      '/metrics',
    ];
    recordFigures({
      source: SOURCE,
      secrets: { planted: Object.keys(SECRETS).length, places, found: hits.length },
      receipts: { sent: ids.length, stored: stored.length },
    });
    expect(hits).toEqual([]);
  }, 120_000);
});
