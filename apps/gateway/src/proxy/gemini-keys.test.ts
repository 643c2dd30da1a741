import { randomBytes } from 'node:crypto';
import { createMockProvider, type MockProvider } from '@toolgate/mock-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../logger.ts';
import { geminiAgent, GEMINI_TEST_MODEL as MODEL, say } from '../testing/gemini-agent.ts';
import { servedReceipts } from '../testing/served-receipts.ts';
import { startTestGateway, type TestGateway } from '../testing/test-gateway.ts';

/**
 * Gemini's API key travels in `x-goog-api-key` or in the URL (`?key=`). Either way it reaches the
 * provider as a header — never in a URL — and nowhere else: not in a log line (the gateway logs
 * at debug level here), a receipt, or an error answer, whether the request succeeds, is refused
 * by the gateway, matches no route, or fails at the provider with the key echoed back. A
 * Toolgate token in a key slot is never passed on; a key configured on the gateway wins.
 */

const random = (bytes: number) => randomBytes(bytes).toString('hex');
/** Opaque: found only by where it travels, not by its shape. */
const AGENT_KEY = `gemini-agent-${random(12)}`;
/** Shaped like a Google API key (`AIza` + 35), for the provider that echoes it back. */
const ECHOED_KEY = `AIza${random(17)}x`;
const GATEWAY_KEY = `gemini-gateway-${random(12)}`;

let mock: MockProvider;
let gw: TestGateway;
let log = '';

beforeAll(async () => {
  mock = await createMockProvider({ requireKey: AGENT_KEY });
  const destination = {
    write(line: string) {
      log += line;
    },
  };
  gw = await startTestGateway({ upstreamUrl: mock.url, log: createLogger('debug', destination) });
  await gw.applyPolicies([]);
});
afterAll(async () => {
  await gw?.close();
  await mock?.close();
});

const body = (text = 'hi') => JSON.stringify({ contents: [{ role: 'user', parts: [{ text }] }] });
const post = (url: string, headers: Record<string, string> = {}, text?: string) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: body(text),
  });

describe('Gemini API keys', () => {
  it('passes the agent’s key on from the header or from ?key=, always as a header', async () => {
    mock.requests.clear();
    const viaSdk = await geminiAgent(gw.url, { apiKey: AGENT_KEY }).models.generateContent({
      model: MODEL,
      contents: 'hi',
    });
    expect(viaSdk.text).toBe('mock: 0 tools');
    const viaQuery = await post(
      `${gw.url}/v1beta/models/${MODEL}:generateContent?key=${AGENT_KEY}`,
    );
    expect(viaQuery.status).toBe(200);
    const stream = await post(
      `${gw.url}/v1beta/models/${MODEL}:streamGenerateContent?alt=sse&key=${AGENT_KEY}`,
    );
    expect(stream.status).toBe(200);
    expect(await stream.text()).toContain('"finishReason":"STOP"');
    // The provider accepted the key each time (it requires it), and never saw it in a URL.
    expect(mock.requests.last().map((r) => r.path)).toEqual([
      `/v1beta/models/${MODEL}:generateContent`,
      `/v1beta/models/${MODEL}:generateContent`,
      `/v1beta/models/${MODEL}:streamGenerateContent?alt=sse`,
    ]);
  });

  it('never passes a Toolgate token on, from either key slot', async () => {
    const token = `tg_${'A'.repeat(43)}`;
    mock.requests.clear();
    for (const response of [
      await post(`${gw.url}/v1beta/models/${MODEL}:generateContent?key=${token}`),
      await post(`${gw.url}/v1beta/models/${MODEL}:generateContent`, { 'x-goog-api-key': token }),
    ]) {
      // No key reached the provider, which requires one.
      expect(response.status).toBe(401);
      expect(((await response.json()) as { error: { status: string } }).error.status).toBe(
        'UNAUTHENTICATED',
      );
    }
    for (const request of mock.requests.last()) {
      expect(request.headers['x-goog-api-key']).toBeUndefined();
    }
  });

  it('uses the gateway’s own key when it has one', async () => {
    const strict = await createMockProvider({ requireKey: GATEWAY_KEY });
    const gateway = await startTestGateway({ upstreamUrl: strict.url, geminiApiKey: GATEWAY_KEY });
    try {
      await gateway.applyPolicies([]);
      const response = await post(
        `${gateway.url}/v1beta/models/${MODEL}:generateContent?key=${AGENT_KEY}`,
      );
      expect(response.status).toBe(200);
    } finally {
      await gateway.close();
      await strict.close();
    }
  });

  it('keeps the key out of logs, receipts and error answers, whatever happens', async () => {
    const keyed = `key=${AGENT_KEY}`;
    const answers: string[] = [];
    const send = async (path: string, headers: Record<string, string> = {}, text?: string) => {
      const response = await post(gw.url + path, headers, text);
      answers.push(await response.text());
      return response.status;
    };
    expect(await send(`/v1beta/models/${MODEL}:generateContent?${keyed}`)).toBe(200);
    // Refused by the gateway: unknown method, bad model, stream without alt=sse, bad body.
    expect(await send(`/v1beta/models/${MODEL}:countTokens?${keyed}`)).toBe(404);
    expect(await send(`/v1beta/models/a%2Fb:generateContent?${keyed}`)).toBe(400);
    expect(await send(`/v1beta/models/${MODEL}:streamGenerateContent?${keyed}`)).toBe(400);
    const refused = await fetch(`${gw.url}/v1beta/models/${MODEL}:generateContent?${keyed}`, {
      method: 'POST',
      body: '{"contents": [',
    });
    answers.push(await refused.text());
    // No route at all (Fastify's 404 quotes the URL).
    const lost = await fetch(`${gw.url}/v1beta/tunedModels?${keyed}&pageSize=1`);
    expect(lost.status).toBe(404);
    answers.push(await lost.text());
    // The provider fails and echoes a key back.
    const echo = say({ error: { status: 400, message: `API key not valid: ${ECHOED_KEY}` } });
    expect(
      await send(`/v1beta/models/${MODEL}:generateContent`, { 'x-goog-api-key': AGENT_KEY }, echo),
    ).toBe(400);

    const receipts = JSON.stringify(await servedReceipts(gw.spool));
    for (const secret of [AGENT_KEY, ECHOED_KEY]) {
      expect(log).not.toContain(secret);
      expect(receipts).not.toContain(secret);
      for (const answer of answers) expect(answer).not.toContain(secret);
    }
    // The checks could have failed: the lines and answers are there, quoting what they may.
    expect(answers.join('\n')).toContain('no route GET /v1beta/tunedModels?key=[REDACTED]');
    expect(answers.join('\n')).toContain('API key not valid: [REDACTED]');
    expect(receipts).toContain('"status":400');
    expect(log.length).toBeGreaterThan(0);
  });
});
