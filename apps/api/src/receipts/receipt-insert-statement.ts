import { arrayLiteral, columnLiteral, nestedLiteral } from './array-literal.ts';
import type { NewReceiptRow } from './receipts.repository.ts';

/** Between the JSON texts of a statement's bodies (JSON text holds control characters escaped). */
export const RECORD_SEPARATOR = '\u001e';

/**
 * One statement for a chunk of a batch: each receipt into its month's partition of `receipts`
 * and its link into `receipt_links`, whose keys (id; gateway and seq) are what makes both
 * unique across partitions. Columns travel as array literals (built here, so the driver passes
 * them on as they are) zipped by `ROWS FROM`. The bodies travel as one text, JSON texts
 * separated by U+001E (JSON text holds control characters only escaped, so the separator
 * cannot occur inside a body), split by `string_to_table` and parsed one by one: a third faster
 * than one big JSON array through `jsonb_array_elements`, and three times faster than a text[]
 * (which has to be escaped and `array_in` unescapes).
 */
export function insertStatement(
  gateway: string,
  rows: ReadonlyArray<NewReceiptRow>,
): { text: string; values: string[] } {
  const column = (value: (row: NewReceiptRow) => string | null) => columnLiteral(rows, value);
  // text[][] cannot be unnested row by row (arrays are rectangular and unnest flattens them),
  // so each row's array travels as an array literal inside the array, and is cast back.
  const nested = (
    key:
      | 'tools'
      | 'rules'
      | 'policies'
      | 'capabilities'
      | 'calledTools'
      | 'blockedCalls'
      | 'withheldCalls',
  ) => nestedLiteral(rows, (row) => row[key]);
  const values = [
    gateway,
    column((row) => row.id),
    column((row) => row.seq.toString()),
    column((row) => row.receivedAt),
    column((row) => row.surface),
    column((row) => row.model),
    column((row) => (row.stream ? 't' : 'f')),
    column((row) => String(row.status)),
    column((row) => row.outcome),
    column((row) => row.identityHuman),
    column((row) => row.identityService),
    column((row) => row.identitySession),
    column((row) => row.binding),
    nested('tools'),
    nested('rules'),
    nested('policies'),
    column((row) => row.prevHash),
    column((row) => row.hash),
    column((row) => row.toolSetHash),
    rows.map((row) => row.body).join(RECORD_SEPARATOR),
    ...toolLinkColumns(rows),
    nested('calledTools'),
    nested('blockedCalls'),
    nested('withheldCalls'),
    column((row) => String(row.mediationMs)),
    column((row) => String(row.upstreamMs)),
    column((row) => row.outcomeClass),
    nested('capabilities'),
  ];
  const text = `
    WITH u AS MATERIALIZED (
      SELECT * FROM ROWS FROM (
        unnest($2::text[]), unnest($3::bigint[]), unnest($4::timestamptz[]), unnest($5::text[]),
        unnest($6::text[]), unnest($7::boolean[]), unnest($8::int[]), unnest($9::text[]),
        unnest($10::text[]), unnest($11::text[]), unnest($12::text[]), unnest($13::text[]),
        unnest($14::text[]), unnest($15::text[]), unnest($16::text[]), unnest($17::text[]),
        unnest($18::text[]), unnest($19::text[]), string_to_table($20::text, E'\\x1e'),
        unnest($26::text[]), unnest($27::text[]), unnest($28::text[]),
        unnest($29::float8[]), unnest($30::float8[]), unnest($31::text[]), unnest($32::text[])
      ) AS u(id, seq, received_at, surface, model, stream, status, outcome, identity_human,
        identity_service, identity_session, binding, tools, rules, policies, prev_hash, hash,
        tool_set_hash, body, called_tools, blocked_calls, withheld_calls, mediation_ms,
        upstream_ms, outcome_class, capabilities)
    ), links AS (
      INSERT INTO receipt_links (id, gateway, seq, received_at, hash)
      SELECT u.id, $1, u.seq, u.received_at, u.hash FROM u
    ), tool_links AS (
      INSERT INTO receipt_tool_calls (receipt_id, role, tool_call_id, action_id, gateway,
        received_at)
      SELECT t.receipt_id, t.role, t.tool_call_id, t.action_id, $1, t.received_at
      FROM ROWS FROM (unnest($21::text[]), unnest($22::text[]), unnest($23::text[]),
        unnest($24::text[]), unnest($25::timestamptz[]))
        AS t(receipt_id, role, tool_call_id, action_id, received_at)
    ), stats AS (
      INSERT INTO receipt_stats (id, received_at, outcome_class, mediation_ms, upstream_ms,
        called_tools, blocked_calls, withheld_calls)
      SELECT u.id, u.received_at, u.outcome_class, u.mediation_ms, u.upstream_ms,
        u.called_tools::text[], u.blocked_calls::text[], u.withheld_calls::text[]
      FROM u
    ), tool_names AS (
      -- Sorted, so concurrent batches take the name rows' locks in one order.
      INSERT INTO receipt_tool_names (name)
      SELECT DISTINCT name FROM u, unnest(u.tools::text[]) AS name ORDER BY name
      ON CONFLICT DO NOTHING
    )
    INSERT INTO receipts (id, gateway, seq, received_at, surface, model, stream, status, outcome,
      identity_human, identity_service, identity_session, binding, tools, rules, policies,
      capabilities, prev_hash, hash, tool_set_hash, body)
    SELECT u.id, $1, u.seq, u.received_at, u.surface, u.model, u.stream, u.status,
      u.outcome, u.identity_human, u.identity_service, u.identity_session, u.binding,
      u.tools::text[], u.rules::text[], u.policies::text[], u.capabilities::text[], u.prev_hash,
      u.hash, u.tool_set_hash, u.body::jsonb
    FROM u`;
  return { text, values };
}

/**
 * The batch's call-to-result link rows as five parallel array literals ($21–$25), flattened
 * across receipts: they ride in the receipts' statement (no extra round trip per batch).
 */
function toolLinkColumns(rows: ReadonlyArray<NewReceiptRow>): string[] {
  const receiptIds: string[] = [];
  const roles: string[] = [];
  const toolCallIds: string[] = [];
  const actionIds: string[] = [];
  const receivedAts: string[] = [];
  for (const row of rows) {
    for (const link of row.toolLinks ?? []) {
      receiptIds.push(row.id);
      roles.push(link.role);
      toolCallIds.push(link.toolCallId);
      actionIds.push(link.actionId);
      receivedAts.push(row.receivedAt);
    }
  }
  return [receiptIds, roles, toolCallIds, actionIds, receivedAts].map(arrayLiteral);
}
