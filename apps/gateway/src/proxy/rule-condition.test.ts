import { createClient } from '@toolgate/contract';
import { until } from '@toolgate/core/testing';
import OpenAI from 'openai';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../../../api/src/testing/test-api.ts';
import { BundleSync } from '../bundle/bundle-sync.ts';
import { policyObject, registerGateway } from '../faults/control-plane.ts';
import { createMetrics } from '../metrics.ts';
import { decodeSpooledReceipt } from '../receipts/spooled-receipt.ts';
import { startTestGateway, type TestGateway } from '../testing/test-gateway.ts';

/**
 * A hide rule scoped by `when:` over real HTTP with the official SDK: it hides for a
 * token-proven contractor, not for a token-proven other human, and for a caller that only names
 * itself a contractor in a header (an unproven field is absent in CEL: the hide fails closed).
 */
interface Receipt {
  identity?: { human?: string; binding?: string };
  tool_set_hash?: string;
}
interface ToolSet {
  wardwright_tool_mediation?: { annotations?: string[]; applied_rules: Array<{ id: string }> };
}

const GATEWAY = 'when-gw';
let api: TestApi;
let gw: TestGateway;
let sync: BundleSync;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  api = await startTestApi();
  const labels = { env: 'when-test' };
  const gatewayClient = createClient({
    baseUrl: api.url,
    token: await registerGateway(api, GATEWAY, labels),
  });
  await api.operator.call('mediationPolicies.create', {
    body: policyObject('contractors', labels, [
      {
        id: 'no-delete-for-contractors',
        action: 'hide',
        match: { name: 'delete_repo' },
        when: "identity.human.startsWith('contractor-')",
      },
    ]),
  });
  for (const name of ['contractor-ann', 'bob']) {
    tokens[name] = (await api.identity(name, ['agent'], 'human')).token;
  }
  gw = await startTestGateway();
  sync = new BundleSync({
    gateway: GATEWAY,
    store: gw.bundles,
    client: gatewayClient,
    metrics: createMetrics(),
    log: pino({ level: 'silent' }),
    waitSeconds: 30,
    spoolDepth: () => 0,
  });
  sync.start();
  await until(() => gw.bundles.current()?.bundle.policies.length === 1);
});

afterAll(async () => {
  await sync?.stop();
  await gw?.close();
  await api?.close();
});

const providerKey = () => ['sk', 'test', 'provider', 'key'].join('-');
const tool = (name: string) => ({
  type: 'function' as const,
  function: { name, parameters: { type: 'object', properties: {} } },
});

async function providerSaw(apiKey: string, headers: Record<string, string> = {}) {
  const before = gw.mock.requests.last(1)[0]?.seq ?? 0;
  await new OpenAI({
    baseURL: `${gw.url}/v1`,
    apiKey,
    maxRetries: 0,
    defaultHeaders: headers,
  }).chat.completions.create({
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: 'hello' }],
    tools: [tool('delete_repo'), tool('read_file')],
  });
  const [seen] = gw.mock.requests.last(1);
  expect(seen?.seq).toBeGreaterThan(before);
  const body = seen?.body as { tools?: Array<{ function: { name: string } }> };
  return (body.tools ?? []).map((t) => t.function.name);
}

describe('when: on a hide rule, end to end', () => {
  it('hides for a token-proven contractor', async () => {
    expect(await providerSaw(tokens['contractor-ann'] ?? '')).toEqual(['read_file']);
  });
  it('does not hide for a token-proven other human', async () => {
    expect(await providerSaw(tokens.bob ?? '')).toEqual(['delete_repo', 'read_file']);
  });
  it('hides for a caller that only claims a name in a header (fail closed)', async () => {
    expect(await providerSaw(providerKey(), { 'x-user-id': 'bob' })).toEqual(['read_file']);
    expect(await providerSaw(providerKey(), { 'x-user-id': 'contractor-ann' })).toEqual([
      'read_file',
    ]);
    // The receipt says the condition could not be evaluated, and the hide applied anyway.
    // Spooled receipts are compact: the mediation block sits in the tool set they reference.
    const spooled = async () =>
      (await gw.spool.pendingEncoded(10_000)).map((r) => decodeSpooledReceipt(r.payload));
    const isClaim = (r: Receipt) =>
      r.identity?.human === 'contractor-ann' && r.identity.binding === 'claimed';
    const parse = (json: Buffer) => JSON.parse(json.toString('utf8')) as Receipt;
    await until(async () => (await spooled()).some((r) => isClaim(parse(r.receiptJson))));
    const all = await spooled();
    const toolSets = Object.assign({}, ...all.map((r) => r.toolSets)) as Record<string, ToolSet>;
    const claim = all.map((r) => parse(r.receiptJson)).find(isClaim);
    const block = toolSets[claim?.tool_set_hash ?? '']?.wardwright_tool_mediation;
    expect(block?.annotations).toEqual(['rule_error:no-delete-for-contractors']);
    expect(block?.applied_rules[0]?.id).toBe('no-delete-for-contractors');
  });
});
