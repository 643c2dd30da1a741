import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CraftedUpstream, startCraftedUpstream } from '../testing/crafted-upstream.ts';
import { startTestGateway, type TestGateway } from '../testing/test-gateway.ts';

/**
 * A Responses answer echoes the request's `tools`, the same text turn after turn; the gateway
 * parses it like an agent request (a known echo is not parsed again, its text is written back
 * as remembered). What the agent gets must still be exactly `JSON.stringify` of what a full
 * `JSON.parse` of the provider's answer gives after enforcement, whatever the provider writes
 * around a known echo: duplicate keys, a second `tools`, a hidden call in a later `output`.
 */

let upstream: CraftedUpstream;
let gw: TestGateway;

const CANARY = 'ECHO-CANARY-4471';
const tools = ['get_time', 'get_weather'].map((name) => ({
  type: 'function',
  name,
  description: `${name} of a place`,
  parameters: { type: 'object', properties: { place: { type: 'string' } } },
  strict: false,
}));
const allowedCall = {
  id: 'fc_ok',
  type: 'function_call',
  status: 'completed',
  call_id: 'call_ok',
  name: 'get_time',
  arguments: '{"place":"Oslo"}',
};
const hiddenCall = { ...allowedCall, id: 'fc_bad', call_id: 'call_bad', name: 'delete_repo' };
const head = '{"id":"resp_echo","object":"response","model":"gpt-4.1","status":"completed"';
const toolsText = JSON.stringify(tools);

async function turn(answer: string): Promise<string> {
  upstream.answer({ status: 200, text: answer, contentType: 'application/json' });
  const response = await fetch(`${gw.url}/v1/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test' },
    body: JSON.stringify({ model: 'gpt-4.1', input: 'go', tools }),
  });
  expect(response.status).toBe(200);
  return response.text();
}

/** What the agent must get: the full parse of the answer, enforced (hidden calls withheld). */
function expectedOf(answer: string): unknown {
  const parsed = JSON.parse(answer) as { output: Array<{ name?: string }> };
  return { ...parsed, output: parsed.output.filter((item) => item.name !== 'delete_repo') };
}

beforeAll(async () => {
  upstream = await startCraftedUpstream();
  gw = await startTestGateway({ upstreamUrl: upstream.url });
  await gw.applyPolicies([
    {
      name: 'hide',
      spec: { rules: [{ id: 'x', action: 'hide', match: { name: 'delete_repo' } }] },
    },
  ]);
});
afterAll(async () => {
  await gw?.close();
  await upstream?.close();
});

describe('a Responses answer echoing the tools', () => {
  it('reaches the agent byte for byte when nothing is withheld, first and later turns', async () => {
    const answer = `${head},"output":[${JSON.stringify(allowedCall)}],"tools":${toolsText}}`;
    expect(await turn(answer)).toBe(answer);
    expect(await turn(answer)).toBe(answer);
  });

  it('is judged on the output a full parse keeps when a known echo sits between two', async () => {
    const answer = `${head},"output":[],"tools":${toolsText},"output":[${JSON.stringify({ ...hiddenCall, arguments: JSON.stringify({ why: CANARY }) })},${JSON.stringify(allowedCall)}]}`;
    await turn(`${head},"output":[],"tools":${toolsText}}`); // the echo is known from here on
    const text = await turn(answer);
    expect(text).not.toContain(CANARY);
    expect(text).not.toContain('delete_repo');
    const body = JSON.parse(text) as { output: Array<{ call_id?: string }> };
    expect(body.output.map((item) => item.call_id)).toContain('call_ok');
    expect(text.match(/"output":/g)).toHaveLength(1); // serialized afresh: one output key
  });

  it('gives the last of two `tools` keys, as JSON.parse does', async () => {
    await turn(`${head},"output":[],"tools":${toolsText}}`);
    const answer = `${head},"output":[${JSON.stringify(allowedCall)}],"tools":${toolsText},"tools":[]}`;
    const text = await turn(answer);
    expect(JSON.parse(text)).toEqual(expectedOf(answer));
    expect(text).toBe(JSON.stringify(JSON.parse(answer)));
  });

  it('gives whitespace-laden echoes back normalized, the known list and a new one alike', async () => {
    const spaced = JSON.stringify(tools, null, 2);
    const answer = `${head},"output":[${JSON.stringify(allowedCall)}],"tools": ${spaced} }`;
    for (let i = 0; i < 2; i++) {
      const text = await turn(answer);
      expect(text).toBe(JSON.stringify(JSON.parse(answer)));
    }
  });
});
