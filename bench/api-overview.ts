import { createTestDatabase, startTestPostgres } from '@toolgate/db/testing';
import { type BenchResult, median } from './measure.ts';
import { fillReceipts, startApiOn } from './receipts-db.ts';

/**
 * The console overview's aggregates (`GET /receipts/overview`) on a million receipts spread over
 * January 2026: the time from request to parsed answer for the whole month (every row in
 * range: the worst case), a week, a day and an hour, each the median of RUNS after a warm-up.
 * Target: under a second for every range the console offers (hour, day, week); the month (the
 * longest custom range) is reported, not targeted.
 */

const ROWS = 1_000_000;
const RUNS = 5;
const TARGET_MS = 1000;
const GATEWAYS = ['gw-00', 'gw-01', 'gw-02'];

const progress = (line: string) => process.stdout.write(`  · ${line}\n`);

const RANGES: Array<[label: string, query: Record<string, string>]> = [
  ['month (1M receipts)', { from: '2026-01-01T00:00:00Z', to: '2026-01-31T00:00:00Z' }],
  ['week', { from: '2026-01-10T00:00:00Z', to: '2026-01-17T00:00:00Z' }],
  ['day', { from: '2026-01-10T00:00:00Z', to: '2026-01-11T00:00:00Z' }],
  ['hour', { from: '2026-01-10T12:00:00Z', to: '2026-01-10T13:00:00Z', bucket: '60' }],
];

export async function runApiOverviewBench(): Promise<BenchResult> {
  const server = await startTestPostgres();
  try {
    const database = await createTestDatabase(server.adminUrl);
    progress(`filling a database with ${ROWS.toLocaleString('en-US')} receipts`);
    await fillReceipts(database.url, ROWS, progress);
    const api = await startApiOn(database, GATEWAYS);
    try {
      const get = async (query: Record<string, string>) => {
        const start = performance.now();
        const response = await fetch(
          `${api.url}/apis/toolgate.dev/v1/receipts/overview?${new URLSearchParams(query)}`,
          { headers: { authorization: `Bearer ${api.operatorToken}` } },
        );
        const body = (await response.json()) as { totals: { requests: number } };
        if (response.status !== 200) throw new Error(`overview failed: ${JSON.stringify(body)}`);
        return { ms: performance.now() - start, requests: body.totals.requests };
      };
      const lines: string[] = [];
      let passed = true;
      for (const [label, query] of RANGES) {
        await get(query);
        const times: number[] = [];
        let requests = 0;
        for (let run = 0; run < RUNS; run++) {
          const result = await get(query);
          times.push(result.ms);
          requests = result.requests;
        }
        const ms = median(times);
        const targeted = !label.startsWith('month');
        if (targeted && ms >= TARGET_MS) passed = false;
        lines.push(
          `overview, ${label}: ${requests.toLocaleString('en-US')} receipts in range, median ${ms.toFixed(0)} ms (runs ${times.map((t) => t.toFixed(0)).join(', ')})${targeted ? `; target < ${TARGET_MS} ms: ${ms < TARGET_MS ? 'PASS' : 'FAIL'}` : ''}`,
        );
      }
      return { name: 'api-overview: console overview aggregates on 1M receipts', passed, lines };
    } finally {
      await api.close();
    }
  } finally {
    await server.teardown();
  }
}
