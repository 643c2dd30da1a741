import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { until } from '@toolgate/core/testing';
import { findFreePort } from '@toolgate/db';
import { createMockProvider, type MockProvider } from '@toolgate/mock-provider';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { injectFault } from '../../../../scripts/reliability/figures.ts';
import { startTestApi, type TestApi } from '../../../api/src/testing/test-api.ts';
import {
  hideRule,
  openAITools,
  policyObject,
  registerGateway,
  storedReceipt,
} from './control-plane.ts';
import { readMetric } from './metrics.ts';
import { type GatewayProcess, killAllGateways, startGateway } from './processes.ts';

/**
 * The provider misbehaving behind a real gateway process: too slow (past UPSTREAM_TIMEOUT_MS),
 * not there at all, or cutting a stream in the middle of a tool call. The agent's SDK gets a
 * provider-style error (never a hang, never a fragment of a tool call) and the receipt records
 * what happened.
 */

const LABELS = { env: 'upstream' };
const TOOLS = openAITools(['search_code', 'delete_repo']);

let api: TestApi;
let mock: MockProvider;
const dirs: string[] = [];
/** In front of the mock, giving up on it after 500 ms. */
let impatient: GatewayProcess;
/** In front of a port nothing listens on. */
let stranded: GatewayProcess;

beforeAll(async () => {
  [api, mock] = await Promise.all([startTestApi(), createMockProvider()]);
  await api.operator.call('mediationPolicies.create', {
    body: policyObject('no-deletes', LABELS, [hideRule('hide-deletes', 'delete_repo')]),
  });
  const closedPort = await findFreePort();
  const start = async (name: string, env: Record<string, string>) => {
    const dataDir = await mkdtemp(join(tmpdir(), `toolgate-fault-${name}-`));
    dirs.push(dataDir);
    return startGateway({
      name,
      apiUrl: api.url,
      apiToken: await registerGateway(api, name, LABELS),
      upstreamUrl: mock.url,
      dataDir,
      env,
    });
  };
  [impatient, stranded] = await Promise.all([
    start('edge-impatient', { UPSTREAM_TIMEOUT_MS: '500' }),
    start('edge-stranded', {
      OPENAI_BASE_URL: `http://127.0.0.1:${closedPort}`,
      ANTHROPIC_BASE_URL: `http://127.0.0.1:${closedPort}`,
    }),
  ]);
});

afterAll(async () => {
  await killAllGateways();
  await Promise.all([api?.close(), mock?.close()]);
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

function sdk(gateway: GatewayProcess) {
  return new OpenAI({ apiKey: 'sk-test', baseURL: `${gateway.url}/v1`, maxRetries: 0 });
}

function request(script: object) {
  return {
    model: 'gpt-4o-mini',
    messages: [{ role: 'user' as const, content: `mock: ${JSON.stringify(script)}` }],
    tools: TOOLS,
  };
}

function streamRequest(script: object) {
  return { ...request(script), stream: true as const };
}

/** The SDK call's error (it must fail). */
async function failure(call: Promise<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> {
  try {
    await call;
  } catch (error) {
    expect(error).toBeInstanceOf(OpenAI.APIError);
    return error as InstanceType<typeof OpenAI.APIError>;
  }
  throw new Error('the call succeeded');
}

/** The receipt once the gateway shipped it to the API. */
async function shippedReceipt(id: string) {
  let receipt: Awaited<ReturnType<typeof storedReceipt>> | undefined;
  await until(
    async () => {
      receipt = await storedReceipt(api, id).catch(() => undefined);
      return receipt !== undefined;
    },
    10_000,
    `receipt ${id} at the API`,
  );
  return receipt as Awaited<ReturnType<typeof storedReceipt>>;
}

/** Rejects when `promise` takes longer than `ms`: "no hang" as an assertion. */
function within<T>(ms: number, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`still pending after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** What the mock itself sends for `body` at `path`: the raw SSE up to where it cuts. */
async function cutStreamFromMock(path: string, body: object): Promise<string> {
  const direct = await fetch(`${mock.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  let raw = '';
  const decoder = new TextDecoder();
  await expect(
    (async () => {
      for await (const piece of direct.body as ReadableStream<Uint8Array>) {
        raw += decoder.decode(piece, { stream: true });
      }
    })(),
  ).rejects.toThrow(); // the mock really cuts the connection
  return raw;
}

/** Reads an SDK stream to its end within 3 s; returns what arrived and the error it ended with. */
async function drain(
  stream: AsyncIterable<unknown>,
): Promise<{ items: unknown[]; error: unknown }> {
  const items: unknown[] = [];
  const error = await within(
    3000,
    (async () => {
      for await (const item of stream) items.push(item);
    })().then(
      () => undefined,
      (e: unknown) => e,
    ),
  );
  return { items, error };
}

const SOURCE = 'apps/gateway/src/faults/upstream-faults.test.ts';

describe('upstream faults', () => {
  it('a provider slower than UPSTREAM_TIMEOUT_MS: 504 to the SDK, recorded in the receipt', async () => {
    const fault = injectFault(SOURCE, 'upstream provider slower than the timeout');
    const started = Date.now();
    const error = await within(
      1800,
      failure(sdk(impatient).chat.completions.create(request({ latencyMs: 2000 }))),
    );
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(450);
    expect(error.status).toBe(504);
    expect(error.error).toMatchObject({ message: 'upstream timed out', type: 'api_error' });
    const id = error.headers?.get('x-toolgate-receipt-id');
    expect(id).toMatch(/^rcpt_/);
    const receipt = await shippedReceipt(id as string);
    expect(receipt.outcome).toEqual({ status: 504, error: 'upstream timed out' });
    expect(receipt.stream).toBe(false);
    // The request itself was mediated as usual before it timed out.
    expect(receipt.wardwright_tool_mediation?.applied_rules).toMatchObject([
      { id: 'hide-deletes', action: 'hide', matched_tools: ['delete_repo'] },
    ]);
    // A streamed request that never gets its headers times out the same way.
    const streamed = await within(
      1800,
      failure(sdk(impatient).chat.completions.create(streamRequest({ latencyMs: 2000 }))),
    );
    expect(streamed.status).toBe(504);
    const streamedReceipt = await shippedReceipt(
      streamed.headers?.get('x-toolgate-receipt-id') as string,
    );
    expect(streamedReceipt.outcome.status).toBe(504);
    expect(streamedReceipt.stream).toBe(true);
    fault.survived();
  });

  it('a provider that is not there: 502 to the SDK, recorded in the receipt', async () => {
    const fault = injectFault(SOURCE, 'upstream provider down');
    const error = await within(
      5000,
      failure(sdk(stranded).chat.completions.create(request({ text: 'never' }))),
    );
    expect(error.status).toBe(502);
    expect(error.error).toMatchObject({ type: 'api_error' });
    expect(error.message).toContain('upstream unavailable (ECONNREFUSED)');
    const id = error.headers?.get('x-toolgate-receipt-id') as string;
    const receipt = await shippedReceipt(id);
    expect(receipt.outcome).toEqual({
      status: 502,
      error: 'upstream unavailable (ECONNREFUSED)',
    });
    const streamed = await within(
      5000,
      failure(sdk(stranded).chat.completions.create(streamRequest({ text: 'never' }))),
    );
    expect(streamed.status).toBe(502);
    expect(
      await readMetric(stranded.url, 'toolgate_gateway_requests_total', { status: '502' }),
    ).toBe(2);
    fault.survived();
  });

  it('a stream cut in the middle of a tool call: the SDK errors at once, no fragment leaks', async () => {
    const script = { call: 'search_code', arguments: { repo: 'acme/app', query: 'retry' }, cut: 3 };
    const fault = injectFault(SOURCE, 'upstream stream cut mid tool call (OpenAI)');
    // The premise, straight from the mock: the call's header and a first piece of its
    // arguments, then the connection closes.
    const raw = await cutStreamFromMock('/v1/chat/completions', streamRequest(script));
    expect(raw).toContain('"tool_calls"');
    expect(raw).toContain('"arguments":"{');
    expect(raw).not.toContain('finish_reason":"tool_calls');

    const { data: stream, response } = await sdk(impatient)
      .chat.completions.create(streamRequest(script))
      .withResponse();
    expect(response.status).toBe(200); // the stream had started
    const id = response.headers.get('x-toolgate-receipt-id') as string;
    const { items: chunks, error } = await drain(stream);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as Error).message).toContain('upstream stream failed');
    // The held tool call was never released: not its header, not a piece of its arguments.
    expect(JSON.stringify(chunks)).not.toContain('tool_calls');
    expect(JSON.stringify(chunks)).not.toContain('acme/app');

    const receipt = await shippedReceipt(id);
    expect(receipt.stream).toBe(true);
    expect(receipt.outcome.status).toBe(502);
    expect(receipt.outcome.error).toContain('upstream stream failed');
    // Nothing the agent could call is recorded as having reached it.
    for (const call of receipt.response?.tool_calls ?? []) {
      expect(call.policy_state).not.toBe('allowed');
    }
    fault.survived();
  });

  it('the same on the Anthropic surface: an error event, no fragment of the tool_use block', async () => {
    const script = { call: 'search_code', arguments: { repo: 'acme/app', query: 'retry' }, cut: 5 };
    const fault = injectFault(SOURCE, 'upstream stream cut mid tool call (Anthropic)');
    const body = {
      model: 'mock-claude',
      max_tokens: 100,
      stream: true as const,
      messages: [{ role: 'user' as const, content: `mock: ${JSON.stringify(script)}` }],
      tools: [
        {
          name: 'search_code',
          input_schema: { type: 'object' as const, properties: { repo: { type: 'string' } } },
        },
      ],
    };
    // The premise: message_start, ping, the tool_use block's start and pieces of its input.
    const raw = await cutStreamFromMock('/v1/messages', body);
    expect(raw).toContain('"type":"tool_use"');
    expect(raw).toContain('input_json_delta');
    expect(raw).not.toContain('content_block_stop');

    const anthropic = new Anthropic({ apiKey: 'sk-test', baseURL: impatient.url, maxRetries: 0 });
    const { data: stream, response } = await anthropic.messages.create(body).withResponse();
    expect(response.status).toBe(200);
    const id = response.headers.get('x-toolgate-receipt-id') as string;
    const { items: events, error } = await drain(stream);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect((error as Error).message).toContain('upstream stream failed');
    expect(JSON.stringify(events)).not.toContain('tool_use');
    expect(JSON.stringify(events)).not.toContain('input_json_delta');
    const receipt = await shippedReceipt(id);
    expect(receipt.outcome.status).toBe(502);
    expect(receipt.outcome.error).toContain('upstream stream failed');
    for (const call of receipt.response?.tool_calls ?? []) {
      expect(call.policy_state).not.toBe('allowed');
    }
    fault.survived();
  });
});
