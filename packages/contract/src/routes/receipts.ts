import { IdentityBinding, Receipt, Surface } from '@toolgate/core';
import { z } from 'zod';
import { decimalInteger } from '../decimal-integer.ts';
import { READERS, route } from '../route.ts';
import { API_PREFIX, NameParams } from './resources.ts';

export const MAX_RECEIPT_BATCH = 1000;

/** What happened to one receipt of an ingest batch. */
export const ReceiptIngestResult = z.object({
  id: z.string(),
  /** created; duplicate (already stored with the same hash: retries are harmless); rejected. */
  result: z.enum(['created', 'duplicate', 'rejected']),
  reason: z.string().optional(),
  message: z.string().optional(),
});
export type ReceiptIngestResult = z.infer<typeof ReceiptIngestResult>;

/** A receipt as listed: the columns queries filter on; the full receipt is one GET away. */
export const ReceiptSummary = z.object({
  id: z.string(),
  gateway: z.string(),
  seq: z.string(),
  receivedAt: z.string(),
  surface: Surface,
  model: z.string(),
  stream: z.boolean(),
  status: z.number().int(),
  outcome: z.enum(['ok', 'error', 'blocked']),
  identity: z.object({
    human: z.string().nullable(),
    service: z.string().nullable(),
    session: z.string().nullable(),
    binding: IdentityBinding,
  }),
  tools: z.array(z.string()),
  rules: z.array(z.string()),
  policies: z.array(z.string()),
  hash: z.string(),
});
export type ReceiptSummary = z.infer<typeof ReceiptSummary>;

export const ReceiptQuery = z
  .object({
    gateway: z.string().max(253).optional(),
    /** Matches human, service or session identity. */
    identity: z.string().max(256).optional(),
    tool: z.string().max(256).optional(),
    /** `policy/rule` or just the rule id. */
    rule: z.string().max(256).optional(),
    policy: z.string().max(253).optional(),
    outcome: z.enum(['ok', 'error', 'blocked']).optional(),
    since: z.iso.datetime({ offset: true }).optional(),
    until: z.iso.datetime({ offset: true }).optional(),
    limit: decimalInteger(1, 500).optional(),
    continue: z.string().max(512).optional(),
  })
  .strict();
export type ReceiptQuery = z.infer<typeof ReceiptQuery>;

export const ChainVerification = z.object({
  gateway: z.string(),
  valid: z.boolean(),
  checked: z.number().int(),
  firstBreak: z
    .object({
      seq: z.string(),
      id: z.string(),
      reason: z.enum(['hash_mismatch', 'prev_hash_mismatch', 'seq_gap']),
      expected: z.string().nullable(),
      actual: z.string().nullable(),
    })
    .optional(),
});
export type ChainVerification = z.infer<typeof ChainVerification>;

const SchemaHashParams = z.object({
  hash: z.string().regex(/^sha256:[0-9a-f]{64}$/, 'must be "sha256:" + 64 hex digits'),
});

export const receiptRouteTable = {
  ingest: route({
    method: 'POST',
    path: `${API_PREFIX}/gateways/{name}/receipts`,
    tag: 'Receipts',
    summary: 'Batch ingest (idempotent on receipt id; hash chain checked); per-item results',
    access: { roles: ['gateway'], ownGateway: true },
    params: NameParams,
    body: z
      .object({
        receipts: z.array(z.unknown()).min(1).max(MAX_RECEIPT_BATCH),
        /**
         * Tool sets by hash (`toolgate.receipt.v2` receipts reference theirs by
         * `tool_set_hash`): each one a receipt of the batch references and the API may not have.
         */
        tool_sets: z.record(z.string(), z.unknown()).optional(),
      })
      .strict(),
    response: z.object({ results: z.array(ReceiptIngestResult) }),
  }),
  list: route({
    method: 'GET',
    path: `${API_PREFIX}/receipts`,
    tag: 'Receipts',
    summary: 'Query receipts (time, gateway, identity, tool, rule, policy, outcome); keyset paging',
    access: READERS,
    query: ReceiptQuery,
    response: z.object({
      items: z.array(ReceiptSummary),
      metadata: z.object({ continue: z.string().optional() }),
    }),
  }),
  get: route({
    method: 'GET',
    path: `${API_PREFIX}/receipts/{id}`,
    tag: 'Receipts',
    summary: 'One receipt, in full, with its place in the chain',
    access: READERS,
    params: z.object({ id: z.string().min(1).max(128) }),
    response: z.object({ seq: z.string(), receipt: Receipt }),
  }),
  verify: route({
    method: 'GET',
    path: `${API_PREFIX}/gateways/{name}/receipts/verify`,
    tag: 'Receipts',
    summary: "Verify a gateway's receipt chain; reports the first broken link",
    access: READERS,
    params: NameParams,
    response: ChainVerification,
  }),
  putSchema: route({
    method: 'PUT',
    path: `${API_PREFIX}/schemas/{hash}`,
    tag: 'Schemas',
    summary: 'Store a tool declaration by its canonical hash (the hash must match the content)',
    access: { roles: ['operator', 'gateway'] },
    params: SchemaHashParams,
    body: z.record(z.string(), z.unknown()),
    response: z.object({ hash: z.string(), created: z.boolean() }),
  }),
  getSchema: route({
    method: 'GET',
    path: `${API_PREFIX}/schemas/{hash}`,
    tag: 'Schemas',
    summary: 'A stored tool declaration',
    access: { roles: ['operator', 'auditor', 'gateway'] },
    params: SchemaHashParams,
    response: z.record(z.string(), z.unknown()),
  }),
};
