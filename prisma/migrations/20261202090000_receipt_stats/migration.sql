-- The console's overview (GET /receipts/overview) aggregates a range of receipts: requests by
-- class, mediation and upstream latency percentiles, blocked and withheld calls by rule, tools
-- called. Read from `receipts`, every range scans rows that carry the whole body (a gigabyte
-- per million receipts: seconds); `receipt_stats` holds one narrow row per receipt with just
-- what the overview reads (some 100 bytes), written in the receipt's ingest statement
-- (receipt-columns.ts derives it; chain verify checks it against the body). Existing receipts
-- are filled from their bodies with the same derivation.

-- CreateTable
CREATE TABLE "receipt_stats" (
    "id" TEXT NOT NULL,
    "received_at" TIMESTAMPTZ(3) NOT NULL,
    "outcome_class" TEXT NOT NULL,
    "mediation_ms" DOUBLE PRECISION NOT NULL,
    "upstream_ms" DOUBLE PRECISION NOT NULL,
    "called_tools" TEXT[],
    "blocked_calls" TEXT[],
    "withheld_calls" TEXT[],

    CONSTRAINT "receipt_stats_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "receipt_stats_received_at_idx" ON "receipt_stats"("received_at");

-- Backfill: keep in step with receiptColumns (overviewClass, callVerdictKey) in
-- apps/api/src/receipts/receipt-columns.ts.
INSERT INTO "receipt_stats" ("id", "received_at", "outcome_class", "mediation_ms", "upstream_ms",
  "called_tools", "blocked_calls", "withheld_calls")
SELECT r.id, r.received_at,
  CASE WHEN r.outcome = 'blocked' THEN 'blocked'
    WHEN cardinality(c.withheld) > 0 THEN 'withheld'
    ELSE r.outcome END,
  coalesce((r.body -> 'latency_ms' ->> 'mediation')::double precision, 0),
  coalesce((r.body -> 'latency_ms' ->> 'upstream')::double precision, 0),
  c.called, c.blocked, c.withheld
FROM "receipts" r CROSS JOIN LATERAL (
  SELECT
    ARRAY(SELECT e.value ->> 'name' FROM jsonb_array_elements(calls) WITH ORDINALITY AS e(value, n)
      ORDER BY e.n) AS called,
    ARRAY(SELECT CASE WHEN e.value -> 'decision' ->> 'rule' IS NOT NULL
        THEN coalesce((e.value -> 'decision' ->> 'policy') || '/', '') || (e.value -> 'decision' ->> 'rule')
        ELSE coalesce(e.value ->> 'reason', 'blocked') END
      FROM jsonb_array_elements(calls) WITH ORDINALITY AS e(value, n)
      WHERE e.value ->> 'policy_state' = 'blocked' ORDER BY e.n) AS blocked,
    ARRAY(SELECT CASE WHEN e.value -> 'decision' ->> 'rule' IS NOT NULL
        THEN coalesce((e.value -> 'decision' ->> 'policy') || '/', '') || (e.value -> 'decision' ->> 'rule')
        ELSE coalesce(e.value ->> 'reason', 'deferred') END
      FROM jsonb_array_elements(calls) WITH ORDINALITY AS e(value, n)
      WHERE e.value ->> 'policy_state' = 'deferred' ORDER BY e.n) AS withheld
  FROM (SELECT CASE WHEN jsonb_typeof(r.body -> 'response' -> 'tool_calls') = 'array'
    THEN r.body -> 'response' -> 'tool_calls' ELSE '[]'::jsonb END AS calls) t
) c;
