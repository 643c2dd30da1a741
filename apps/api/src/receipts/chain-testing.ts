import { type ChainVerification, createClient } from '@toolgate/contract';
import { ingestBatchOf, type Receipt } from '@toolgate/core';
import { expect } from 'vitest';
import type { TestApi } from '../testing/test-api.ts';
import { chainOf, type FixtureReceipt, fixtureReceiptBody } from './receipt-fixtures.ts';
import { call, registerGateway } from './receipts-testing.ts';

/** Test support for the chain verification tests: chains ingested over HTTP, verify as an auditor. */

/**
 * A registered gateway with `count` chained receipts made by the real engine, ingested through
 * the API in batches of at most 1000. `vary(i)` changes receipt i (0-based).
 */
export async function gatewayWithChain(
  api: TestApi,
  name: string,
  count: number,
  vary: (index: number) => Partial<FixtureReceipt> = () => ({}),
): Promise<Receipt[]> {
  const client = await registerGateway(api, name);
  const chain = chainOf(
    Array.from({ length: count }, (_, i) =>
      fixtureReceiptBody({
        id: `${name}-${i + 1}`,
        gateway: name,
        receivedAt: new Date(Date.UTC(2026, 4, 1) + i * 1000).toISOString(),
        calls: ['read_file'],
        ...vary(i),
      }),
    ),
  );
  for (let i = 0; i < chain.length; i += 1000) {
    const { results } = await call(client, 'receipts.ingest', {
      params: { name },
      body: ingestBatchOf(chain.slice(i, i + 1000)),
    });
    expect(results.every((r) => r.result === 'created')).toBe(true);
  }
  return chain;
}

/** `GET …/gateways/{name}/receipts/verify` over HTTP as an auditor, optionally from an anchor. */
export async function verifyAs(
  api: TestApi,
  name: string,
  anchor?: { seq: string; hash: string },
): Promise<ChainVerification> {
  auditors.set(api, auditors.get(api) ?? (await api.identity('chain-auditor', ['auditor'])).token);
  const client = createClient({ baseUrl: api.url, token: auditors.get(api) as string });
  return call(client, 'receipts.verify', {
    params: { name },
    ...(anchor ? { query: { anchorSeq: anchor.seq, anchorHash: anchor.hash } } : {}),
  });
}

const auditors = new WeakMap<TestApi, string>();
