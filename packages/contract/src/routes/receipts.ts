import { ContractId, IdentityBinding, Receipt, Surface } from '@toolgate/core';
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

/** `schema` of a {@link ReceiptStandIn}: what tells it apart from a receipt in an ingest batch. */
export const RECEIPT_STAND_IN_SCHEMA = 'toolgate.receipt-stand-in.v1';

const ChainHash = z.string().regex(/^sha256:[0-9a-f]{64}$/, 'must be "sha256:" + 64 hex digits');

/** Longest `held.message` a stand-in carries: the API's refusal, cut by the gateway. */
export const MAX_STAND_IN_MESSAGE = 1024;

/**
 * A chain link for a receipt the API refused for good (docs/receipts.md, "Quarantined receipts"):
 * the gateway keeps the receipt in its quarantine file and ships this instead, in the receipt's
 * place in the batch, so the chain goes on past it. Same `id`, `prev_hash` and `hash` as the
 * receipt; no body. The API stores it as a link whose body is held on the gateway: it cannot
 * check the hash (nothing to hash), only that the link continues the chain.
 */
export const ReceiptStandIn = z
  .object({
    schema: z.literal(RECEIPT_STAND_IN_SCHEMA),
    id: z.string().min(1).max(128),
    gateway: z.string().min(1).max(253),
    /** The receipt's own time when it could be read, else when it was quarantined. */
    received_at: z.iso.datetime({ offset: true }),
    prev_hash: ChainHash.nullable(),
    hash: ChainHash,
    held: z
      .object({
        /** Why the API refused the receipt: its reason (`Invalid`, `RequestEntityTooLarge`, …). */
        reason: z.string().regex(/^[A-Z][A-Za-z0-9]{0,63}$/, 'must be a CamelCase reason'),
        message: z.string().max(MAX_STAND_IN_MESSAGE).optional(),
        /** Size of the spooled record the gateway holds, in bytes. */
        bytes: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
        quarantined_at: z.iso.datetime({ offset: true }),
      })
      .strict(),
  })
  .strict();
export type ReceiptStandIn = z.infer<typeof ReceiptStandIn>;

/**
 * A tool the provider called, as the receipt's response evidence records it: what the list shows
 * instead of the whole offered tool set. `state` is the call's policy state (`deferred`: withheld
 * for approval); hosted tools (web search, …) carry theirs (`opaque`: the provider does not say).
 */
export const CalledTool = z.object({
  name: z.string(),
  state: z.enum(['allowed', 'blocked', 'deferred', 'opaque']),
  /** Why a call was withheld (`hidden`, `not_declared`, `rule:<id>`, …), when it was. */
  reason: z.string().optional(),
  hosted: z.boolean().optional(),
});
export type CalledTool = z.infer<typeof CalledTool>;

/** Called tools a list row carries at most (`callCount` has them all). */
export const MAX_SUMMARY_CALLS = 20;

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
  /** Offered tools and called tools, by name (what the `tool` filter matches). */
  tools: z.array(z.string()),
  /** The tools the provider called, in order, with what the policy did to each (first 20). */
  calls: z.array(CalledTool),
  callCount: z.number().int(),
  rules: z.array(z.string()),
  policies: z.array(z.string()),
  hash: z.string(),
});
export type ReceiptSummary = z.infer<typeof ReceiptSummary>;

/** Longest `toolContains` substring (and suggestions' `contains`): tool names are short. */
export const MAX_TOOL_CONTAINS = 64;

/** The filters of a receipt list (what count and export take too). */
export const ReceiptFilterQuery = z
  .object({
    gateway: z.string().max(253).optional(),
    /** Matches human, service or session identity. */
    identity: z.string().max(256).optional(),
    /** Exact tool name (offered or called). */
    tool: z.string().max(256).optional(),
    /**
     * Case-insensitive substring of a tool name (offered or called), taken literally (`%`, `_`
     * are characters). Resolved to the stored tool names containing it, then read through the
     * tools index; a substring in more than 500 names is refused as too vague (400).
     */
    toolContains: z.string().min(1).max(MAX_TOOL_CONTAINS).optional(),
    /** `policy/rule` or just the rule id. */
    rule: z.string().max(256).optional(),
    policy: z.string().max(253).optional(),
    /**
     * A capability contract id (`wardwright.web_search.v1`): receipts whose request offered a
     * provider-hosted tool of that contract or whose response holds a hosted tool event of it
     * (what the Fidelity page links to, with the profile's `surface`).
     */
    contract: ContractId.optional(),
    /**
     * The request's class, as the Overview counts it: `blocked` (refused before the provider),
     * `withheld` (a call held for approval or withheld by a rule, not blocked), `ok` and
     * `error` (neither blocked nor withheld).
     */
    outcome: z.enum(['ok', 'error', 'blocked', 'withheld']).optional(),
    /** Which surface the request came in on (`openai-chat`, `mcp`, …). */
    surface: Surface.optional(),
    since: z.iso.datetime({ offset: true }).optional(),
    until: z.iso.datetime({ offset: true }).optional(),
  })
  .strict();
export type ReceiptFilterQuery = z.infer<typeof ReceiptFilterQuery>;

/** `since` must not be after `until`: such a range is a mistake, not an empty answer. */
function rangeInOrder(query: { since?: string | undefined; until?: string | undefined }) {
  return (
    query.since === undefined ||
    query.until === undefined ||
    Date.parse(query.since) <= Date.parse(query.until)
  );
}
const RANGE_ORDER = { message: 'since must not be after until', path: ['since'] };

export const ReceiptOrder = z.enum(['newest', 'oldest']);
export type ReceiptOrder = z.infer<typeof ReceiptOrder>;

export const ReceiptQuery = ReceiptFilterQuery.extend({
  /** `newest` first (the default) or `oldest` first. A continue token keeps its order. */
  order: ReceiptOrder.optional(),
  limit: decimalInteger(1, 500).optional(),
  continue: z.string().max(512).optional(),
})
  .strict()
  .refine(rangeInOrder, RANGE_ORDER);
export type ReceiptQuery = z.infer<typeof ReceiptQuery>;

/** Counting stops here: past it the console says "1,000+" (a count must stay cheap). */
export const RECEIPT_COUNT_CAP = 1000;

export const ReceiptCountQuery = ReceiptFilterQuery.strict().refine(rangeInOrder, RANGE_ORDER);

/** Fields the console's pickers suggest values for. */
export const ReceiptValueField = z.enum(['gateway', 'identity', 'policy', 'rule', 'tool']);
export type ReceiptValueField = z.infer<typeof ReceiptValueField>;

/** Most suggestions one request returns. */
export const MAX_RECEIPT_VALUES = 100;

/**
 * What verify found wrong at the first altered receipt:
 * - `hash_mismatch`: the receipt's content does not hash to its recorded hash (`field`: which
 *   copy disagrees: `body` (the hash inside the body), `receipts.hash`, `receipt_links.hash`);
 * - `link_mismatch`: the stored receipt disagrees with its link (place in the chain) on `field`
 *   (`id`, `gateway`, `seq`, `received_at`);
 * - `column_mismatch`: a list column (`field`, as named in the table) differs from what the body
 *   says (what filters and the list read);
 * - `tool_set_missing` / `tool_set_mismatch`: the tool set the receipt references (`expected`,
 *   its content address) is not stored, or its content hashes to `actual`;
 * - `body_missing`: the link is stored, the receipt itself is not (deleted);
 * - `seq_gap`: no link at this seq (deleted); `id` is null, `actual` is the next seq stored;
 * - `prev_hash_mismatch`: the receipt links to another stored receipt than the one before it
 *   (reordered or moved);
 * - `successor_mismatch`: the next receipt links to a hash no stored receipt has: this receipt
 *   was rewritten with every copy of its hash recomputed (or receipts after it were removed and
 *   the chain renumbered);
 * - `anchor_mismatch` / `truncated`: the chain no longer holds the anchor given (a seq and hash
 *   recorded earlier): rewritten up to it, or cut short before it;
 * - `stand_in_mismatch`: a stand-in link (a receipt the gateway quarantined) whose recorded
 *   `hash` or `prev_hash` (`field`) does not continue the chain.
 */
export const ChainFindingReason = z.enum([
  'hash_mismatch',
  'link_mismatch',
  'column_mismatch',
  'tool_set_missing',
  'tool_set_mismatch',
  'body_missing',
  'seq_gap',
  'prev_hash_mismatch',
  'successor_mismatch',
  'anchor_mismatch',
  'truncated',
  'stand_in_mismatch',
]);
export type ChainFindingReason = z.infer<typeof ChainFindingReason>;

/** The first altered receipt of a chain and what about it was altered. */
export const ChainFinding = z.object({
  seq: z.string(),
  /** Null where no receipt is stored at `seq` at all (`seq_gap`, `truncated`). */
  id: z.string().nullable(),
  reason: ChainFindingReason,
  /** What was altered: a hash copy, a link or list column, or the tool set's hash. */
  field: z.string().optional(),
  expected: z.string().nullable(),
  actual: z.string().nullable(),
  /** One sentence for people. */
  message: z.string(),
});
export type ChainFinding = z.infer<typeof ChainFinding>;

export const ChainVerification = z.object({
  gateway: z.string(),
  valid: z.boolean(),
  /** Receipts verified: every one before the first altered receipt. */
  checked: z.number().int(),
  /**
   * The last receipt of an intact chain: record it outside the database and pass it back as the
   * anchor of a later verify, which then also finds the chain rewritten or cut short up to it.
   */
  head: z.object({ seq: z.string(), id: z.string(), hash: z.string() }).optional(),
  firstBreak: ChainFinding.optional(),
  /**
   * Links before the first break that are stand-ins for receipts the gateway quarantined (their
   * bodies are held on the gateway, not here): linked into the chain, not verifiable by content.
   * An intact chain with held links is intact *except* for these; check them against the
   * gateway's quarantine file. `count` is all of them; `links` the first 100.
   */
  held: z
    .object({
      count: z.number().int(),
      links: z.array(z.object({ seq: z.string(), id: z.string(), reason: z.string() })),
    })
    .optional(),
});
export type ChainVerification = z.infer<typeof ChainVerification>;

const Sha256 = z.string().regex(/^sha256:[0-9a-f]{64}$/, 'must be "sha256:" + 64 hex digits');

/** An anchor recorded earlier (a previous verify's `head`): seq and hash, both or neither. */
export const ChainVerifyQuery = z
  .object({
    anchorSeq: z
      .string()
      .regex(/^[1-9][0-9]{0,18}$/, 'must be a positive integer')
      .optional(),
    anchorHash: Sha256.optional(),
  })
  .strict()
  .refine((query) => (query.anchorSeq === undefined) === (query.anchorHash === undefined), {
    message: 'anchorSeq and anchorHash go together',
    path: ['anchorHash'],
  });
export type ChainVerifyQuery = z.infer<typeof ChainVerifyQuery>;

const SchemaHashParams = z.object({ hash: Sha256 });

/**
 * One link between a tool call and its result, seen from a receipt: `side` is the receipt's own
 * (`call`: it released the call, and `receipt` carries the result, from the agent's next
 * request; `result`: it carries the result, and `receipt` released the call). A call and a
 * result link when they share the call id and the action id (same tool, arguments, identity).
 */
export const ReceiptToolLink = z.object({
  toolCallId: z.string(),
  side: z.enum(['call', 'result']),
  /** The other receipt's id. */
  receipt: z.string(),
  gateway: z.string(),
  receivedAt: z.string(),
});
export type ReceiptToolLink = z.infer<typeof ReceiptToolLink>;

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
  count: route({
    method: 'GET',
    path: `${API_PREFIX}/receipt-count`,
    tag: 'Receipts',
    summary: `How many receipts match the list filters, exact up to ${RECEIPT_COUNT_CAP} (then capped)`,
    access: READERS,
    query: ReceiptCountQuery,
    response: z.object({
      count: z.number().int(),
      /** True when more match than `count` says: counting stopped at the cap. */
      capped: z.boolean(),
    }),
  }),
  values: route({
    method: 'GET',
    path: `${API_PREFIX}/receipt-values/{field}`,
    tag: 'Receipts',
    summary: 'Values to suggest for a receipt filter (gateway, identity, policy, rule, tool)',
    access: READERS,
    params: z.object({ field: ReceiptValueField }),
    query: z
      .object({
        /** Case-insensitive substring the values contain. */
        contains: z.string().max(MAX_TOOL_CONTAINS).optional(),
      })
      .strict(),
    response: z.object({
      items: z.array(z.string()),
      /** True when there were more than could be returned. */
      truncated: z.boolean(),
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
  toolLinks: route({
    method: 'GET',
    path: `${API_PREFIX}/receipts/{id}/tool-links`,
    tag: 'Receipts',
    summary: "Links from a receipt's tool calls to the receipts holding their results, and back",
    access: READERS,
    params: z.object({ id: z.string().min(1).max(128) }),
    response: z.object({ items: z.array(ReceiptToolLink) }),
  }),
  verify: route({
    method: 'GET',
    path: `${API_PREFIX}/gateways/{name}/receipts/verify`,
    tag: 'Receipts',
    summary:
      "Verify a gateway's receipt chain, tool sets and list columns; reports the first altered receipt",
    access: READERS,
    params: NameParams,
    query: ChainVerifyQuery,
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
