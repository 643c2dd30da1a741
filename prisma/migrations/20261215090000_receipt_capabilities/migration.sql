-- The capability contracts a receipt holds evidence of (`wardwright.web_search.v1`, …): those of
-- the request's provider-hosted tools (`tools[].capability`) and of the hosted tool events in
-- its response (`response.hosted_tool_events[].capability`), each once, in that order. The
-- receipt list filters on it (`contract=`, what the Fidelity page links to) through a GIN index,
-- like `tools`; ingest writes it (receipt-columns.ts derives it) and chain verify checks it
-- against the body.

-- Added with a default, so existing rows read `{}` without the table being rewritten; the
-- default then goes (ingest always writes the column, as it does `tools`).
ALTER TABLE "receipts" ADD COLUMN "capabilities" TEXT[] DEFAULT '{}';
ALTER TABLE "receipts" ALTER COLUMN "capabilities" DROP DEFAULT;

-- CreateIndex
CREATE INDEX "receipts_capabilities_idx" ON "receipts" USING GIN ("capabilities");

-- Backfill: only the receipts with a hosted capability are rewritten. A v2 receipt's tools are
-- in the tool set it references. Keep in step with receiptCapabilities in
-- apps/api/src/receipts/receipt-columns.ts (first occurrence order, tools before events).
WITH derived AS (
  SELECT r.id, r.received_at, ARRAY(
    SELECT c.capability FROM (
      SELECT e.value ->> 'capability' AS capability, e.n AS position
      FROM jsonb_array_elements(CASE WHEN jsonb_typeof(tools.list) = 'array'
        THEN tools.list ELSE '[]'::jsonb END) WITH ORDINALITY AS e(value, n)
      UNION ALL
      SELECT e.value ->> 'capability', 1000000000 + e.n
      FROM jsonb_array_elements(CASE WHEN jsonb_typeof(r.body -> 'response' -> 'hosted_tool_events') = 'array'
        THEN r.body -> 'response' -> 'hosted_tool_events' ELSE '[]'::jsonb END) WITH ORDINALITY AS e(value, n)
    ) c
    WHERE c.capability IS NOT NULL
    GROUP BY c.capability
    ORDER BY min(c.position)
  ) AS capabilities
  FROM "receipts" r
  CROSS JOIN LATERAL (
    SELECT coalesce(r.body -> 'tools',
      (SELECT t.body -> 'tools' FROM "tool_sets" t WHERE t.hash = r.tool_set_hash)) AS list
  ) tools
)
UPDATE "receipts" r SET "capabilities" = d.capabilities
FROM derived d
WHERE r.id = d.id AND r.received_at = d.received_at AND cardinality(d.capabilities) > 0;
