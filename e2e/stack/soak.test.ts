import { createTestDatabase, type TestDatabase } from '@toolgate/db/testing';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runSoak } from '../../bench/soak/run-soak.ts';
import { recordFigures } from '../../scripts/reliability/figures.ts';

/**
 * The short soak for CI (`pnpm bench:soak` runs the long one): the stack as processes — mock
 * provider, API on an empty database of the run's PostgreSQL, a gateway with the ten-rule
 * policy — at a steady 30 requests/s for 20 s after a 5 s warm-up. No request fails, the spool
 * drains, the receipts stored are exactly the requests made, the chain is valid. Memory is
 * reported (a run this short cannot tell a leak from warm-up); the long soak checks it.
 */

const SOURCE = 'e2e/stack/soak.test.ts';
let database: TestDatabase;

beforeAll(async () => {
  // Empty: the API process applies the migrations itself, as it does on a fresh install.
  database = await createTestDatabase(inject('databaseAdminUrl'), { migrate: false });
});
afterAll(async () => {
  await database?.drop();
});

describe('soak (short)', () => {
  it('holds a steady rate: no errors, spool drained, receipts stored = requests made', async () => {
    const report = await runSoak({
      seconds: 20,
      rate: 30,
      warmupSeconds: 5,
      databaseUrl: database.url,
    });
    console.info(report.lines.join('\n'));
    recordFigures({
      source: SOURCE,
      load: {
        requests: report.requests,
        seconds: Math.round(report.seconds),
        targetRate: report.targetRate,
        errors: report.errors,
        rssMiB: report.rssMiB,
        spoolDrained: report.spoolDrained,
      },
      receipts: { sent: report.requests, stored: report.receiptsStored },
    });
    expect(report.failures).toEqual([]);
    expect(report.requests).toBe(750);
    expect(report.receiptsStored).toBe(report.requests);
    expect(report.chainValid).toBe(true);
  }, 180_000);
});
