import Anthropic from '@anthropic-ai/sdk';
import { hashLenient, type Receipt } from '@toolgate/core';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { servedReceipts } from '../testing/served-receipts.ts';
import { startTestGateway, type TestGateway } from '../testing/test-gateway.ts';

/**
 * The result side of a call, over real HTTP with the official SDKs, streaming and not: turn 1
 * returns a tool call; turn 2 sends its result back (and one for a call that never happened).
 * The turn-2 receipt records the result with the call's action id (as turn 1's receipt gave it,
 * through a rename), the canonical redacted hash, `is_error`, and the time since the gateway
 * released the call; the unknown call's result has no action id and no elapsed time.
 */

let gw: TestGateway;
const HEADERS = { 'x-user-id': 'alice', 'x-session-id': 'tool-results' };
/** Long enough that an elapsed time measured from the wrong moment would show. */
const TOOL_RUN_MS = 40;
const RESULT = { status: 'sent', recipients: 2, account: 'acme-42' };
const RESULT_HASH = hashLenient({ ...RESULT, account: '[REDACTED]' });

beforeAll(async () => {
  gw = await startTestGateway();
  await gw.applyPolicies([
    {
      name: 'mail',
      spec: {
        redact: ['account'],
        rules: [{ id: 'alias', action: 'rename', match: { name: 'send_email' }, alias: 'mail' }],
      },
    },
  ]);
});
afterAll(() => gw.close());

/** The mock provider's script, read from the last user message: call the tool (by its alias). */
const CALL_TEXT = `mock: ${JSON.stringify({ call: 'mail', arguments: { to: 'bob@acme.com' } })}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The receipts of the last two requests (the spool is in chain order): turn 1, turn 2. */
async function lastTwoReceipts(): Promise<[Receipt, Receipt]> {
  const all = await servedReceipts(gw.spool);
  return all.slice(-2) as [Receipt, Receipt];
}

async function expectResults(callId: string, unknownId: string) {
  const [turn1, turn2] = await lastTwoReceipts();
  const released = turn1.response?.tool_calls[0];
  expect(released).toMatchObject({ id: callId, name: 'send_email', policy_state: 'allowed' });
  const [result, unknown] = turn2.tool_results ?? [];
  expect(result).toMatchObject({
    tool_call_id: callId,
    action_id: released?.action_id,
    result_hash: RESULT_HASH,
  });
  expect(result?.elapsed_ms).toBeGreaterThanOrEqual(TOOL_RUN_MS - 5);
  expect(result?.elapsed_ms).toBeLessThan(10_000);
  expect(unknown).toEqual({
    tool_call_id: unknownId,
    result_hash: hashLenient('no such call'),
    is_error: false,
    elapsed_ms: null,
  });
  expect(turn2.redacted_paths).toContain('tool_results[0].result.account');
  return result;
}

describe('OpenAI tool results through the gateway (official SDK)', () => {
  const client = () =>
    new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'sk-test-FAKE', maxRetries: 0 });
  const tools: OpenAI.ChatCompletionTool[] = [
    {
      type: 'function',
      function: {
        name: 'send_email',
        parameters: { type: 'object', properties: { to: { type: 'string' } } },
      },
    },
  ];
  const send = async (stream: boolean, messages: OpenAI.ChatCompletionMessageParam[]) => {
    const params = { model: 'gpt-test', messages, tools };
    const completion = stream
      ? await client().chat.completions.stream(params, { headers: HEADERS }).finalChatCompletion()
      : await client().chat.completions.create(params, { headers: HEADERS });
    return completion.choices[0]?.message as OpenAI.ChatCompletionMessage;
  };

  it.each([false, true])(
    'records turn 2 results against turn 1 calls (stream: %s)',
    async (stream) => {
      const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: CALL_TEXT }];
      const message = await send(stream, messages);
      const call = message.tool_calls?.[0];
      if (call?.type !== 'function') throw new Error('expected a function call');
      expect(call.function.name).toBe('send_email');
      await sleep(TOOL_RUN_MS);

      await send(stream, [
        ...messages,
        message,
        // Spacing and key order are the agent's: the hash is of the canonical value.
        { role: 'tool', tool_call_id: call.id, content: JSON.stringify(RESULT, null, 2) },
        { role: 'tool', tool_call_id: 'call_never_made', content: 'no such call' },
      ]);
      const result = await expectResults(call.id, 'call_never_made');
      expect(result?.is_error).toBe(false);
    },
  );
});

describe('Anthropic tool results through the gateway (official SDK)', () => {
  const client = () =>
    new Anthropic({ baseURL: gw.url, apiKey: 'sk-ant-test-FAKE', maxRetries: 0 });
  const tools: Anthropic.Tool[] = [
    {
      name: 'send_email',
      input_schema: { type: 'object', properties: { to: { type: 'string' } } },
    },
  ];
  const send = (stream: boolean, messages: Anthropic.MessageParam[]) => {
    const params = { model: 'claude-test', max_tokens: 256, tools, messages };
    return stream
      ? client().messages.stream(params, { headers: HEADERS }).finalMessage()
      : client().messages.create(params, { headers: HEADERS });
  };

  it.each([false, true])(
    'records turn 2 results against turn 1 calls (stream: %s)',
    async (stream) => {
      const messages: Anthropic.MessageParam[] = [{ role: 'user', content: CALL_TEXT }];
      const first = await send(stream, messages);
      const use = first.content.find((b) => b.type === 'tool_use');
      if (use?.type !== 'tool_use') throw new Error('expected a tool_use block');
      expect(use.name).toBe('send_email');
      await sleep(TOOL_RUN_MS);

      await send(stream, [
        ...messages,
        { role: 'assistant', content: first.content },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: use.id,
              is_error: true,
              content: JSON.stringify(RESULT),
            },
            { type: 'tool_result', tool_use_id: 'toolu_never_made', content: 'no such call' },
          ],
        },
      ]);
      const result = await expectResults(use.id, 'toolu_never_made');
      expect(result?.is_error).toBe(true);
    },
  );
});
