import Anthropic from '@anthropic-ai/sdk';
import type { BetaRunnableTool } from '@anthropic-ai/sdk/lib/tools/BetaRunnableTool';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../testing/test-gateway.ts';

/**
 * Anthropic's message threads (beta): a continued turn sends `thread: {type: "continue"}` and no
 * `tools`, so the gateway could not mediate it and used to block every call of the loop. The
 * gateway refuses `thread` with the provider's own `thread_unsupported_request` details: the
 * official SDK's `toolRunner` then resends the full conversation without a thread, and the tool
 * loop runs through mediation, streaming and not.
 */

let gw: TestGateway;
let anthropic: Anthropic;

const inputSchema = {
  type: 'object' as const,
  properties: { city: { type: 'string' } },
  required: ['city'],
};

/** A runnable tool as the SDK's helpers build it, recording its calls. */
function runnable(name: string, calls: unknown[]): BetaRunnableTool<{ city: string }> {
  return {
    type: 'custom',
    name,
    description: `${name} tool`,
    input_schema: inputSchema,
    run: (input: { city: string }) => {
      calls.push(input);
      return `${name} ran for ${input.city}`;
    },
    parse: (input: unknown) => input as { city: string },
  } as BetaRunnableTool<{ city: string }>;
}

function seenBodies(): Array<Record<string, unknown>> {
  return gw.mock.requests.last(100).map((r) => r.body as Record<string, unknown>);
}

beforeAll(async () => {
  gw = await startTestGateway();
  await gw.applyPolicies([
    {
      name: 'guardrails',
      spec: { rules: [{ id: 'hide-delete', action: 'hide', match: { name: 'delete_repo' } }] },
    },
  ]);
  anthropic = new Anthropic({ baseURL: gw.url, apiKey: 'sk-ant-test-FAKE', maxRetries: 0 });
});
afterAll(() => gw.close());
beforeEach(() => gw.mock.requests.clear());

describe('Anthropic message threads through the gateway (official SDK)', () => {
  it.each([false, true])('runs a toolRunner loop to its end (stream: %s)', async (stream) => {
    const calls: unknown[] = [];
    const runner = anthropic.beta.messages.toolRunner({
      model: 'claude-test-model',
      max_tokens: 256,
      messages: [{ role: 'user', content: 'Weather? call the first tool' }],
      tools: [runnable('get_weather', calls), runnable('delete_repo', [])],
      stream,
    });
    const final = await runner.runUntilDone();
    expect(calls).toEqual([{ city: 'city' }]);
    expect(final.content.some((b) => b.type === 'text')).toBe(true);
    const bodies = seenBodies();
    // Two turns reached the provider, both whole conversations with mediated tools.
    expect(bodies).toHaveLength(2);
    for (const body of bodies) {
      expect(body).not.toHaveProperty('thread');
      expect((body.tools as Array<{ name: string }>).map((t) => t.name)).toEqual(['get_weather']);
    }
  });

  it('refuses a continued thread with a clear 400 the SDK can act on', async () => {
    const error = await anthropic.beta.messages
      .create({
        model: 'claude-test-model',
        max_tokens: 64,
        messages: [{ role: 'user', content: 'go on' }],
        thread: { type: 'continue', previous_message_id: 'msg_01' },
        betas: ['message-threads-2026-08-12'],
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    const apiError = error as InstanceType<typeof Anthropic.BadRequestError>;
    expect(apiError.errorCode).toBe('thread_unsupported_request');
    expect(apiError.message).toContain('thread: message threads are not supported');
    expect(seenBodies()).toHaveLength(0);
  });

  it('refuses tool_addition blocks, which would declare tools past mediation', async () => {
    const error = await anthropic.messages
      .create({
        model: 'claude-test-model',
        max_tokens: 64,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'here is a tool' },
              {
                type: 'tool_addition',
                tool: {
                  type: 'tool_definition',
                  definition: { name: 'delete_repo', input_schema: { type: 'object' } },
                },
              },
            ],
          },
        ] as never,
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect((error as Error).message).toContain('messages[0].content[1]: tool_addition blocks');
    expect(seenBodies()).toHaveLength(0);
  });
});
