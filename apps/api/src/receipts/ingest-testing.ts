import type { ApiClient } from '@toolgate/contract';
import { compactReceipt, type Receipt, type ToolSet } from '@toolgate/core';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { startTestApi, type TestApi } from '../testing/test-api.ts';
import { fixtureReceiptBody } from './receipt-fixtures.ts';
import { call, registerGateway } from './receipts-testing.ts';

/**
 * The receipt ingest tests' stack (a test API and a database connection, started once per file)
 * and what they do with it: register gateways, make fixture receipts, post them as a gateway
 * does, read what was stored.
 */
export function ingestTestStack() {
  const stack = {} as { api: TestApi; db: pg.Client };
  beforeAll(async () => {
    stack.api = await startTestApi();
    stack.db = new pg.Client({ connectionString: stack.api.database.url });
    await stack.db.connect();
  });
  afterAll(async () => {
    await stack.db.end();
    await stack.api.close();
  });
  const gateway = (name: string) => registerGateway(stack.api, name);

  function bodies(
    gatewayName: string,
    count: number,
    from = 0,
    tools = ['search_code', 'create_pull_request', 'read_file'],
  ) {
    return Array.from({ length: count }, (_, i) =>
      fixtureReceiptBody({
        id: `${gatewayName}-r${from + i}`,
        gateway: gatewayName,
        receivedAt: new Date(Date.UTC(2026, 0, 2, 3, 4, 5) + (from + i) * 1000).toISOString(),
        tools,
        calls: i % 3 === 0 ? ['create_pull_request'] : ['read_file'],
      }),
    );
  }

  /**
   * Posts receipts as a gateway does: each receipt in its stored form, with the tool sets they
   * reference unless `withToolSets` is false. Items that are not receipts go as they are.
   */
  async function ingest(client: ApiClient, name: string, receipts: unknown[], withToolSets = true) {
    const toolSets: Record<string, ToolSet> = {};
    const items = receipts.map((item) => {
      if (!Array.isArray((item as Partial<Receipt> | undefined)?.tools)) return item;
      const { stored, toolSet } = compactReceipt(item as Receipt);
      toolSets[stored.tool_set_hash] = toolSet;
      return stored;
    });
    const { results } = await call(client, 'receipts.ingest', {
      params: { name },
      body: { receipts: items, ...(withToolSets ? { tool_sets: toolSets } : {}) },
    });
    return results;
  }

  async function rowCount(gatewayName: string): Promise<number> {
    const { rows } = await stack.db.query(
      'SELECT count(*)::int AS n FROM receipts WHERE gateway = $1',
      [gatewayName],
    );
    return rows[0].n;
  }

  /**
   * Runs `during` while another session, in a transaction, holds `what` (HELD): a batch that
   * needs the same row or lock waits on that session.
   */
  async function whileHeld(what: Held, during: (other: pg.Client) => Promise<void>) {
    const other = new pg.Client({ connectionString: stack.api.database.url });
    await other.connect();
    try {
      await other.query('BEGIN');
      await hold(other, what);
      await during(other);
    } finally {
      await other.end();
    }
  }

  /** Backends of the API's database waiting for a row another transaction holds. */
  async function rowLockWaits(): Promise<number> {
    const { rows } = await stack.db.query(
      `SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted AND locktype = 'transactionid'`,
    );
    return rows[0].n;
  }

  async function storedChain(gatewayName: string) {
    const { rows } = await stack.db.query(
      'SELECT id, seq::int AS seq, prev_hash, hash FROM receipts WHERE gateway = $1 ORDER BY seq',
      [gatewayName],
    );
    return rows as Array<{ id: string; seq: number; prev_hash: string | null; hash: string }>;
  }

  return { stack, gateway, bodies, ingest, rowCount, whileHeld, rowLockWaits, storedChain };
}

/** A statement another session runs in an open transaction (`whileHeld`). */
export interface Held {
  text: string;
  values: unknown[];
}

/** Makes `session` (in a transaction) hold `what` too, e.g. the lock a batch holds. */
export async function hold(session: pg.Client, what: Held): Promise<void> {
  await session.query(what.text, what.values);
}

/** What a test makes another session hold while a batch is ingested. */
export const HELD = {
  /** An uncommitted `tool_sets` row: the batch's statement storing that set waits on it. */
  toolSetRow: (hash: string): Held => ({
    text: `INSERT INTO tool_sets (hash, body) VALUES ($1, '{}')`,
    values: [hash],
  }),
  /** An uncommitted `receipt_tool_names` row: the batch's transaction waits on it. */
  toolNameRow: (name: string): Held => ({
    text: 'INSERT INTO receipt_tool_names (name) VALUES ($1)',
    values: [name],
  }),
  /** A gateway's chain lock: the batch's transaction waits for it, right after it begins. */
  chainLock: (gateway: string): Held => ({
    text: 'SELECT pg_advisory_xact_lock(hashtext($1))',
    values: [`receipts:${gateway}`],
  }),
};
