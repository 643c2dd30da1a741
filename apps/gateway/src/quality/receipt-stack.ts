import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ProviderSurface } from '@toolgate/core';
import { until } from '@toolgate/core/testing';
import { createMockProvider, type MockProvider } from '@toolgate/mock-provider';
import { startTestApi, type TestApi } from '../../../api/src/testing/test-api.ts';
import {
  hideRule,
  policyObject,
  registerGateway,
  storedReceiptIds,
  untilSynced,
} from '../faults/control-plane.ts';
import { type GatewayProcess, killAllGateways, startGateway } from '../faults/processes.ts';

/**
 * The whole receipt path for the receipt-evasion tests: the real API on PostgreSQL, a gateway
 * process syncing from it and shipping to it, and the mock provider behind the gateway. One
 * stack serves every attempt of a file; each attempt tells whether the provider got the request
 * and which receipt id the agent was given, and `unreceipted` checks them against the API.
 */

/** Gemini's streaming route (its stream flag is in the path, not the body). */
export const GEMINI_STREAM_PATH = '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse';

export const ENDPOINTS: Record<ProviderSurface, string> = {
  'openai-chat': '/v1/chat/completions',
  'anthropic-messages': '/v1/messages',
  gemini: '/v1beta/models/gemini-2.5-flash:generateContent',
  'openai-responses': '/v1/responses',
};

/** One request as an agent (or an attacker) sends it. */
export interface Attempt {
  surface: ProviderSurface;
  /** The gateway path, when not the surface's own (Gemini's streaming route). */
  path?: string;
  /** JSON text (lone surrogates written as `\ud800` escapes), or raw bytes. */
  body: string | Uint8Array;
  headers?: Record<string, string>;
}

/** What came of an attempt. */
export interface Outcome {
  /**
   * The HTTP status, or 0 when the gateway's HTTP parser closed the connection before the
   * answer could be read (Node answers headers past its 16 KiB limit with 431 and closes at
   * once, which races with the client still sending its body).
   */
  status: number;
  text: string;
  receiptId: string | null;
  /** Requests the provider received while the attempt ran (attempts run one at a time). */
  reachedProvider: number;
}

export interface ReceiptStack {
  api: TestApi;
  mock: MockProvider;
  gateway: GatewayProcess;
  gatewayName: string;
  send(attempt: Attempt): Promise<Outcome>;
  /**
   * Waits (up to `timeoutMs`) until every id is stored by the API, then returns the forwarded
   * attempts without exactly one stored receipt of their own, and receipts stored that no
   * attempt was given (a receipt for a refused request, or a duplicate).
   */
  unreceipted(
    forwarded: ReadonlyArray<Outcome>,
    timeoutMs?: number,
  ): Promise<{
    missing: Outcome[];
    unexpected: string[];
    storedTimes: (id: string | null) => number;
  }>;
  close(): Promise<void>;
}

export async function startReceiptStack(gatewayName: string): Promise<ReceiptStack> {
  const labels = { env: gatewayName };
  const [api, mock] = await Promise.all([startTestApi(), createMockProvider()]);
  const token = await registerGateway(api, gatewayName, labels);
  await api.operator.call('mediationPolicies.create', {
    body: policyObject('no-deletes', labels, [hideRule('hide-deletes', 'delete_*')]),
  });
  const dataDir = await mkdtemp(join(tmpdir(), `toolgate-${gatewayName}-`));
  const gateway = await startGateway({
    name: gatewayName,
    apiUrl: api.url,
    apiToken: token,
    upstreamUrl: mock.url,
    dataDir,
    env: { BODY_LIMIT: String(16 * 1024 * 1024) },
  });
  await untilSynced(api, gatewayName, 15_000);
  // Every request the provider's HTTP server received, including those it refused before its
  // handler ran (Fastify answers a `__proto__` key with 400 without logging the request).
  let received = 0;
  mock.app.server.on('request', () => {
    received++;
  });
  const providerSeq = () => received;

  return {
    api,
    mock,
    gateway,
    gatewayName,
    async send(attempt) {
      const before = providerSeq();
      let response: Response;
      try {
        response = await fetch(gateway.url + (attempt.path ?? ENDPOINTS[attempt.surface]), {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...attempt.headers },
          body: attempt.body,
          signal: AbortSignal.timeout(30_000),
        });
      } catch (error) {
        const cause = (error as { cause?: { code?: string } }).cause?.code ?? String(error);
        return {
          status: 0,
          text: `connection closed before an answer: ${cause}`,
          receiptId: null,
          reachedProvider: providerSeq() - before,
        };
      }
      const text = await response.text();
      return {
        status: response.status,
        text,
        receiptId: response.headers.get('x-toolgate-receipt-id'),
        reachedProvider: providerSeq() - before,
      };
    },
    // Longer than the shipper's longest backoff (30 s ± 20 %): a slow API delays, never loses.
    async unreceipted(forwarded, timeoutMs = 60_000) {
      const expected = forwarded.flatMap((o) => (o.receiptId ? [o.receiptId] : []));
      let stored: string[] = [];
      await until(
        async () => {
          stored = await storedReceiptIds(api, gatewayName);
          const have = new Set(stored);
          return expected.every((id) => have.has(id));
        },
        timeoutMs,
        'every forwarded request’s receipt stored by the API',
      ).catch(() => undefined);
      const counts = new Map<string, number>();
      for (const id of stored) counts.set(id, (counts.get(id) ?? 0) + 1);
      const given = new Set(expected);
      return {
        missing: forwarded.filter((o) => !o.receiptId || counts.get(o.receiptId) !== 1),
        unexpected: stored.filter((id) => !given.has(id)),
        storedTimes: (id) => (id === null ? 0 : (counts.get(id) ?? 0)),
      };
    },
    async close() {
      await killAllGateways();
      await Promise.all([api.close(), mock.close()]);
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** `value` as JSON text with every `@LONE@` marker in it turned into a lone-surrogate escape. */
export function jsonWithLoneSurrogates(value: unknown): string {
  return JSON.stringify(value).replaceAll('@LONE@', '\\ud800');
}
