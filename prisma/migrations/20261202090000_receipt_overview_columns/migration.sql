-- The console's overview (GET /receipts/overview) aggregates a range of receipts: tools called,
-- calls blocked and withheld by rule, mediation and upstream latency percentiles. Read from the
-- body, that is a detoast and a JSON walk per receipt (seconds on a million); as columns derived
-- at ingest (receipt-columns.ts) it is a plain scan. Existing receipts are filled from their
-- bodies with the same derivation, so chain verify finds them consistent.

-- AlterTable
ALTER TABLE "receipts" ADD COLUMN "called_tools" TEXT[],
ADD COLUMN "blocked_calls" TEXT[],
ADD COLUMN "withheld_calls" TEXT[],
ADD COLUMN "mediation_ms" DOUBLE PRECISION NOT NULL DEFAULT 0,
ADD COLUMN "upstream_ms" DOUBLE PRECISION NOT NULL DEFAULT 0;

-- Backfill: keep in step with callVerdictKey in apps/api/src/receipts/receipt-columns.ts.
UPDATE "receipts" SET
  "called_tools" = ARRAY(
    SELECT c.value ->> 'name' FROM jsonb_array_elements(
      CASE WHEN jsonb_typeof(body -> 'response' -> 'tool_calls') = 'array'
        THEN body -> 'response' -> 'tool_calls' ELSE '[]' END) WITH ORDINALITY AS c(value, n)
    ORDER BY c.n),
  "blocked_calls" = ARRAY(
    SELECT CASE WHEN c.value -> 'decision' ->> 'rule' IS NOT NULL
      THEN coalesce((c.value -> 'decision' ->> 'policy') || '/', '') || (c.value -> 'decision' ->> 'rule')
      ELSE coalesce(c.value ->> 'reason', 'blocked') END
    FROM jsonb_array_elements(
      CASE WHEN jsonb_typeof(body -> 'response' -> 'tool_calls') = 'array'
        THEN body -> 'response' -> 'tool_calls' ELSE '[]' END) WITH ORDINALITY AS c(value, n)
    WHERE c.value ->> 'policy_state' = 'blocked' ORDER BY c.n),
  "withheld_calls" = ARRAY(
    SELECT CASE WHEN c.value -> 'decision' ->> 'rule' IS NOT NULL
      THEN coalesce((c.value -> 'decision' ->> 'policy') || '/', '') || (c.value -> 'decision' ->> 'rule')
      ELSE coalesce(c.value ->> 'reason', 'deferred') END
    FROM jsonb_array_elements(
      CASE WHEN jsonb_typeof(body -> 'response' -> 'tool_calls') = 'array'
        THEN body -> 'response' -> 'tool_calls' ELSE '[]' END) WITH ORDINALITY AS c(value, n)
    WHERE c.value ->> 'policy_state' = 'deferred' ORDER BY c.n),
  "mediation_ms" = coalesce((body -> 'latency_ms' ->> 'mediation')::double precision, 0),
  "upstream_ms" = coalesce((body -> 'latency_ms' ->> 'upstream')::double precision, 0);
