import { readFile } from 'node:fs/promises';
import type { ReceiptStandIn } from '@toolgate/contract';
import { receiptHash, type StoredReceipt } from '@toolgate/core';
import { PrismaService } from '../../../../api/src/database/prisma.service.ts';
import type { TestApi } from '../../../../api/src/testing/test-api.ts';
import type { QuarantinedReceipt } from '../quarantine.ts';

/**
 * A gateway's chain as the API stores it, read straight from PostgreSQL: every link in seq
 * order, with the receipt's body or, for a quarantined receipt, its stand-in. Test support for
 * checking that quarantine leaves a chain that goes on and can be joined up with the gateway's
 * quarantine file (the API's verify is checked by its own tests).
 */
export interface ChainLink {
  seq: number;
  id: string;
  hash: string;
  body: StoredReceipt | null;
  standIn: ReceiptStandIn | null;
}

export async function chainLinks(api: TestApi, gateway: string): Promise<ChainLink[]> {
  const { rows } = await api.app.get(PrismaService).pool.query(
    `SELECT l.seq::int AS seq, l.id, l.hash, r.body, l.stand_in AS "standIn"
       FROM receipt_links l LEFT JOIN receipts r ON r.id = l.id AND r.received_at = l.received_at
       WHERE l.gateway = $1 ORDER BY l.seq`,
    [gateway],
  );
  return rows as ChainLink[];
}

export async function quarantineEntries(path: string): Promise<QuarantinedReceipt[]> {
  const text = await readFile(path, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as QuarantinedReceipt);
}

/**
 * Problems with the chain, joined up with the quarantine (empty when there are none): seq
 * 1, 2, 3, … without gaps; every link's `prev_hash` the previous link's hash; every stored body
 * hashing to its link's hash; every stand-in standing for an entry of the quarantine file with
 * the same id, hash and `prev_hash`.
 */
export function chainProblems(
  links: ReadonlyArray<ChainLink>,
  quarantined: ReadonlyArray<QuarantinedReceipt>,
): string[] {
  const problems: string[] = [];
  const held = new Map(quarantined.map((entry) => [entry.record.receipt.id, entry.record]));
  let prev: string | null = null;
  links.forEach((link, index) => {
    const at = `seq ${link.seq} (${link.id})`;
    if (link.seq !== index + 1) problems.push(`${at}: expected seq ${index + 1}`);
    if (link.standIn) {
      const record = held.get(link.id);
      if (link.standIn.prev_hash !== prev) problems.push(`${at}: stand-in prev_hash`);
      if (!record) problems.push(`${at}: stand-in for a receipt not in the quarantine file`);
      else if (record.hash !== link.hash || record.receipt.prev_hash !== prev) {
        problems.push(`${at}: the quarantined record does not fit this place in the chain`);
      }
    } else if (link.body) {
      if (link.body.prev_hash !== prev) problems.push(`${at}: prev_hash`);
      if (receiptHash(link.body) !== link.hash) problems.push(`${at}: body does not hash`);
    } else problems.push(`${at}: neither a body nor a stand-in`);
    prev = link.hash;
  });
  return problems;
}
