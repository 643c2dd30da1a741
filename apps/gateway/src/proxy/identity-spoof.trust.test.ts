import { mkdtemp, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import type { ReceiptIdentity } from '@toolgate/core';
import { until } from '@toolgate/core/testing';
import { createMockProvider, type MockProvider } from '@toolgate/mock-provider';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordFigures } from '../../../../scripts/reliability/figures.ts';
import { TokensService } from '../../../api/src/identities/tokens.service.ts';
import { startTestApi, type TestApi } from '../../../api/src/testing/test-api.ts';
import {
  openAITools,
  policyObject,
  providerToolNames,
  registerGateway,
  storedReceipt,
  untilSynced,
} from '../faults/control-plane.ts';
import { type GatewayProcess, killAllGateways, startGateway } from '../faults/processes.ts';

/**
 * Issue #19 item 3, against the real stack (API on PostgreSQL, gateways as processes syncing
 * their bundle and shipping receipts, the official SDKs): an agent that names itself in headers,
 * in every form we could think of, is never bound as `verified`; `unknownIdentities: reject`
 * refuses every caller a token does not prove; and a hide scoped to `contractor-*` applies to
 * every unproven caller, whatever name it sends. Only `headerClaims: trusted` on every policy
 * lets known header names count.
 */

const TOOLS = ['deploy', 'admin_console', 'search_code'];
/** Hidden from contractors, and (a negative regex) from every human who is not staff. */
const RULES = [
  {
    id: 'no-deploy',
    action: 'hide',
    match: { name: 'deploy', identity: { human: 'contractor-*' } },
  },
  {
    id: 'staff-only-console',
    action: 'hide',
    match: { name: 'admin_console', identity: { human: '/^(?!staff-).*$/' } },
  },
];
const SETTINGS = {
  open: {},
  strict: { unknownIdentities: 'reject' },
  trusted: { unknownIdentities: 'reject', headerClaims: 'trusted' },
} as const;
type Setting = keyof typeof SETTINGS;

let api: TestApi;
let mock: MockProvider;
let dataDir: string;
const gateways = {} as Record<Setting, GatewayProcess>;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  [api, mock] = await Promise.all([startTestApi(), createMockProvider()]);
  for (const [name, type] of [
    ['alice', 'human'],
    ['contractor-7', 'human'],
    ['staff-1', 'human'],
    ['ci-bot', 'service'],
    ['demo-agent', 'service'],
    ['revoked-bot', 'service'],
    ['expiring-bot', 'service'],
  ] as const) {
    tokens[name] = (await api.identity(name, ['agent'], type)).token;
  }
  const revoked = await api.operator.call('tokens.listTokens', { params: { name: 'revoked-bot' } });
  for (const token of revoked.items) {
    await api.operator.call('tokens.revokeToken', {
      params: { name: 'revoked-bot', tokenId: token.id },
    });
  }
  // The API refuses lifetimes under a minute; the service itself issues a one-second one.
  const expiring = await api.app
    .get(TokensService)
    .issue('expiring-bot', { ttlSeconds: 1 }, { name: 'test:setup', roles: ['operator'] });
  tokens['expiring-bot'] = expiring.token;
  dataDir = await mkdtemp(join(tmpdir(), 'toolgate-spoof-'));
  await Promise.all(
    (Object.keys(SETTINGS) as Setting[]).map(async (setting) => {
      const name = `spoof-${setting}`;
      const labels = { spoof: setting };
      const token = await registerGateway(api, name, labels);
      const policy = policyObject(`guard-${setting}`, labels, RULES);
      const spec = { selector: { matchLabels: labels }, rules: RULES, ...SETTINGS[setting] };
      await api.operator.call('mediationPolicies.create', { body: { ...policy, spec } as never });
      gateways[setting] = await startGateway({
        name,
        apiUrl: api.url,
        apiToken: token,
        upstreamUrl: mock.url,
        dataDir: join(dataDir, setting),
      });
      await untilSynced(api, name, 20_000);
    }),
  );
  await until(() => Date.now() > Date.parse(expiring.expiresAt ?? '') + 50);
}, 120_000);

afterAll(async () => {
  await killAllGateways();
  await Promise.all([api?.close(), mock?.close()]);
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** One way of sending a request; `proves` names the identity a live token in it proves. */
interface Attempt {
  form: string;
  sdk: 'openai' | 'anthropic' | 'raw';
  headers?: Record<string, string | string[]>;
  /** The SDK's API key (Authorization: Bearer for OpenAI, x-api-key for Anthropic). */
  apiKey?: string;
  proves?: string;
}

interface Outcome {
  status: number;
  identity?: ReceiptIdentity;
  /** Tool names the provider was offered; undefined when the request never reached it. */
  providerSaw?: string[];
}

const providerKey = () => ['sk', 'test', 'provider', 'key'].join('-');
const forged = () => `tg_${'Q'.repeat(43)}`;

/** Every spoof form: header-only claims, tokens beside contradicting headers, dead tokens… */
function attempts(): Attempt[] {
  const list: Attempt[] = [];
  const claim = (form: string, headers: Record<string, string | string[]>) => {
    list.push({ form, sdk: 'openai', headers });
    list.push({ form: `${form} (Anthropic SDK)`, sdk: 'anthropic', headers });
  };
  for (const name of ['alice', 'contractor-7', 'staff-1', 'mallory', 'contractor-99']) {
    claim(`x-user-id: ${name}`, { 'x-user-id': name });
  }
  for (const name of ['ci-bot', 'demo-agent', 'ghost-service']) {
    claim(`x-service-id: ${name}`, { 'x-service-id': name });
  }
  claim('human and service', { 'x-user-id': 'staff-1', 'x-service-id': 'ci-bot' });
  claim('session only', { 'x-session-id': 'admin' });
  claim('nothing at all', {});
  for (const variant of [
    'ALICE',
    'Alice',
    'Staff-1',
    ' staff-1',
    'staff-1 ',
    'staff-1\t',
    'staff -1',
  ]) {
    claim(`case/whitespace variant ${JSON.stringify(variant)}`, { 'x-user-id': variant });
  }
  claim('header name in capitals', { 'X-User-Id': 'staff-1' });
  claim('comma-joined names', { 'x-user-id': 'contractor-7, staff-1' });
  list.push({
    form: 'x-user-id sent twice',
    sdk: 'raw',
    headers: { 'x-user-id': ['staff-1', 'staff-1'] },
  });
  list.push({
    form: 'x-user-id twice, different',
    sdk: 'raw',
    headers: { 'x-user-id': ['contractor-7', 'staff-1'] },
  });
  list.push({
    form: 'x-service-id twice',
    sdk: 'raw',
    headers: { 'x-service-id': ['ci-bot', 'demo-agent'] },
  });
  // Tokens that prove nothing, in every slot, with a known name beside them.
  const dead = {
    revoked: tokens['revoked-bot'],
    expired: tokens['expiring-bot'],
    forged: forged(),
  };
  for (const [kind, token = ''] of Object.entries(dead)) {
    list.push({
      form: `${kind} token as OpenAI key + x-user-id`,
      sdk: 'openai',
      apiKey: token,
      headers: { 'x-user-id': 'staff-1' },
    });
    list.push({
      form: `${kind} token as Anthropic key + x-service-id`,
      sdk: 'anthropic',
      apiKey: token,
      headers: { 'x-service-id': 'ci-bot' },
    });
    list.push({
      form: `${kind} token in x-toolgate-token + x-user-id`,
      sdk: 'openai',
      headers: { 'x-toolgate-token': token, 'x-user-id': 'staff-1' },
    });
  }
  // A token sent where a name goes: refused, never recorded.
  for (const header of ['x-user-id', 'x-service-id', 'x-session-id']) {
    list.push({
      form: `a live token in ${header}`,
      sdk: 'openai',
      headers: { [header]: tokens.alice ?? '' },
    });
  }
  list.push({
    form: 'a provider key in x-user-id',
    sdk: 'openai',
    headers: { 'x-user-id': providerKey() },
  });
  // Two different tokens: ambiguous, refused.
  list.push({
    form: 'two different tokens',
    sdk: 'openai',
    apiKey: tokens.alice,
    headers: { 'x-toolgate-token': tokens['contractor-7'] ?? '' },
  });
  // Live tokens, in each slot, beside headers naming someone else: the token's owner wins.
  list.push({
    form: "contractor's token as OpenAI key + x-user-id: staff-1",
    sdk: 'openai',
    apiKey: tokens['contractor-7'],
    headers: { 'x-user-id': 'staff-1' },
    proves: 'contractor-7',
  });
  list.push({
    form: "contractor's token as Anthropic key + x-user-id: alice",
    sdk: 'anthropic',
    apiKey: tokens['contractor-7'],
    headers: { 'x-user-id': 'alice' },
    proves: 'contractor-7',
  });
  list.push({
    form: "contractor's token in x-toolgate-token + x-user-id: Staff-1",
    sdk: 'openai',
    apiKey: providerKey(),
    headers: { 'x-toolgate-token': tokens['contractor-7'] ?? '', 'x-user-id': 'staff-1' },
    proves: 'contractor-7',
  });
  list.push({
    form: "ci-bot's token + x-user-id: staff-1",
    sdk: 'openai',
    apiKey: tokens['ci-bot'],
    headers: { 'x-user-id': 'staff-1' },
    proves: 'ci-bot',
  });
  list.push({
    form: "alice's token + x-service-id: ci-bot",
    sdk: 'anthropic',
    apiKey: tokens.alice,
    headers: { 'x-service-id': 'ci-bot' },
    proves: 'alice',
  });
  list.push({ form: "alice's token alone", sdk: 'openai', apiKey: tokens.alice, proves: 'alice' });
  return list;
}

async function send(gateway: GatewayProcess, attempt: Attempt): Promise<Outcome> {
  const before = mock.requests.last(1)[0]?.seq ?? 0;
  const { status, receiptId } = await deliver(gateway, attempt);
  const [latest] = mock.requests.last(1);
  const reached = latest !== undefined && latest.seq > before;
  const outcome: Outcome = {
    status,
    ...(reached ? { providerSaw: providerToolNames(latest.body) } : {}),
  };
  if (receiptId) {
    await until(async () => {
      try {
        outcome.identity = (await storedReceipt(api, receiptId)).identity;
        return true;
      } catch {
        return false; // not shipped yet
      }
    }, 20_000);
  }
  return outcome;
}

async function deliver(
  gateway: GatewayProcess,
  attempt: Attempt,
): Promise<{ status: number; receiptId?: string | null }> {
  const headers = (attempt.headers ?? {}) as Record<string, string>;
  const messages = [{ role: 'user' as const, content: 'hello' }];
  try {
    if (attempt.sdk === 'openai') {
      const openai = new OpenAI({
        baseURL: `${gateway.url}/v1`,
        apiKey: attempt.apiKey ?? providerKey(),
        defaultHeaders: headers,
        maxRetries: 0,
      });
      const { response } = await openai.chat.completions
        .create({ model: 'gpt-4o-mini', messages, tools: openAITools(TOOLS) })
        .withResponse();
      return { status: response.status, receiptId: response.headers.get('x-toolgate-receipt-id') };
    }
    if (attempt.sdk === 'anthropic') {
      const anthropic = new Anthropic({
        baseURL: gateway.url,
        apiKey: attempt.apiKey ?? providerKey(),
        defaultHeaders: headers,
        maxRetries: 0,
      });
      const { response } = await anthropic.messages
        .create({
          model: 'claude-opus-5',
          max_tokens: 64,
          messages,
          tools: TOOLS.map((name) => ({
            name,
            description: name,
            input_schema: { type: 'object' as const },
          })),
        })
        .withResponse();
      return { status: response.status, receiptId: response.headers.get('x-toolgate-receipt-id') };
    }
  } catch (error) {
    if (error instanceof OpenAI.APIError || error instanceof Anthropic.APIError) {
      return { status: error.status ?? 0 };
    }
    throw error;
  }
  return rawRequest(gateway, attempt.headers ?? {});
}

/** node:http, because fetch joins repeated headers into one line and the SDKs use fetch. */
function rawRequest(
  gateway: GatewayProcess,
  headers: Record<string, string | string[]>,
): Promise<{ status: number; receiptId?: string | null }> {
  const body = JSON.stringify({
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: 'hi' }],
    tools: openAITools(TOOLS),
  });
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      `${gateway.url}/v1/chat/completions`,
      {
        method: 'POST',
        headers: {
          ...headers,
          'content-type': 'application/json',
          authorization: `Bearer ${providerKey()}`,
        },
      },
      (response) => {
        response.resume();
        response.on('end', () => {
          const id = response.headers['x-toolgate-receipt-id'];
          resolve({
            status: response.statusCode ?? 0,
            receiptId: typeof id === 'string' ? id : null,
          });
        });
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

/** A `verified` binding is earned only by a live token, and only for that token's owner. */
function verifiedWithoutProof(attempt: Attempt, outcome: Outcome): boolean {
  const identity = outcome.identity;
  if (identity?.binding !== 'verified') return false;
  return attempt.proves === undefined || (identity.human ?? identity.service) !== attempt.proves;
}

async function run(setting: Setting) {
  const results: Array<{ attempt: Attempt; outcome: Outcome }> = [];
  for (const attempt of attempts()) {
    results.push({ attempt, outcome: await send(gateways[setting], attempt) });
  }
  const spoofed = results.filter((r) => verifiedWithoutProof(r.attempt, r.outcome));
  recordFigures({
    source: `identity-spoof (${setting})`,
    spoof: { attempts: results.length, verifiedWithoutProof: spoofed.length },
  });
  expect(spoofed.map((r) => r.attempt.form)).toEqual([]);
  return results;
}

const describeEach = (results: Array<{ attempt: Attempt; outcome: Outcome }>) =>
  results.map(({ attempt, outcome }) => ({
    form: attempt.form,
    status: outcome.status,
    binding: outcome.identity?.binding,
    saw: outcome.providerSaw,
  }));

describe('identity spoofing, with unknown identities allowed', () => {
  it('binds no header claim as verified, and every unproven caller gets the contractor hide', async () => {
    const results = await run('open');
    for (const { attempt, outcome } of results) {
      const context = JSON.stringify(describeEach([{ attempt, outcome }]));
      if (outcome.status === 400) {
        expect(outcome.providerSaw, context).toBeUndefined();
        continue;
      }
      expect(outcome.status, context).toBe(200);
      if (attempt.proves === undefined) {
        expect(['claimed', 'unverified'], context).toContain(outcome.identity?.binding);
        // Not proven, so possibly a contractor, and possibly not staff: both hides apply.
        expect(outcome.providerSaw, context).toEqual(['search_code']);
      } else {
        expect(outcome.identity?.binding, context).toBe('verified');
        expect(outcome.identity?.human ?? outcome.identity?.service, context).toBe(attempt.proves);
      }
    }
    // Tokens sent where names go, repeated headers and two tokens are refused, naming the header.
    const refused = results.filter((r) => r.outcome.status === 400).map((r) => r.attempt.form);
    expect(refused.sort()).toEqual(
      [
        'a live token in x-session-id',
        'a live token in x-service-id',
        'a live token in x-user-id',
        'a provider key in x-user-id',
        'two different tokens',
        'x-service-id twice',
        'x-user-id sent twice',
        'x-user-id twice, different',
      ].sort(),
    );
    const byForm = new Map(results.map((r) => [r.attempt.form, r.outcome]));
    // The contractor's own token: the header naming staff does not lift the hide.
    expect(byForm.get("contractor's token as OpenAI key + x-user-id: staff-1")).toMatchObject({
      providerSaw: ['search_code'],
      identity: { human: 'contractor-7', binding: 'verified', claims: { human: 'staff-1' } },
    });
    // alice proven: no contractor (deploy stays), not staff (console hidden).
    expect(byForm.get("alice's token alone")?.providerSaw).toEqual(['deploy', 'search_code']);
    // A proven service carries no human: human-scoped hides do not apply to it.
    expect(byForm.get("ci-bot's token + x-user-id: staff-1")).toMatchObject({
      providerSaw: ['deploy', 'admin_console', 'search_code'],
      identity: { service: 'ci-bot', binding: 'verified', claims: { human: 'staff-1' } },
    });
    // Header claims of known agents are recorded as claimed, unknown ones as unverified.
    expect(byForm.get('x-user-id: staff-1')?.identity).toEqual({
      human: 'staff-1',
      binding: 'claimed',
    });
    expect(byForm.get('x-user-id: mallory')?.identity).toEqual({
      human: 'mallory',
      binding: 'unverified',
    });
  });
});

describe('identity spoofing, with unknownIdentities: reject', () => {
  it('refuses every caller a live token does not prove', async () => {
    const results = await run('strict');
    for (const { attempt, outcome } of results) {
      const context = JSON.stringify(describeEach([{ attempt, outcome }]));
      if (attempt.proves === undefined) {
        expect([400, 403], context).toContain(outcome.status);
        expect(outcome.providerSaw, context).toBeUndefined();
      } else {
        expect(outcome.status, context).toBe(200);
        expect(outcome.identity?.binding, context).toBe('verified');
      }
    }
  });
});

describe('headerClaims: trusted (a trusted network sets the headers)', () => {
  it('lets known header names count, still never as verified; unknown names stay refused', async () => {
    const results = await run('trusted');
    const byForm = new Map(results.map((r) => [r.attempt.form, r.outcome]));
    expect(byForm.get('x-user-id: staff-1')).toMatchObject({
      status: 200,
      identity: { human: 'staff-1', binding: 'claimed' },
      providerSaw: ['deploy', 'admin_console', 'search_code'],
    });
    expect(byForm.get('x-user-id: contractor-7')?.providerSaw).toEqual(['search_code']);
    expect(byForm.get('x-user-id: mallory')?.status).toBe(403);
    expect(byForm.get('case/whitespace variant "Staff-1"')?.status).toBe(403);
    expect(byForm.get('forged token in x-toolgate-token + x-user-id')?.status).toBe(403);
  });
});
