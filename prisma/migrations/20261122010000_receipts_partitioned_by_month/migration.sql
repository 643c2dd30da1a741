-- Receipts partitioned by month of `received_at` (SPEC §7, docs/operations.md). The partition
-- key is the gateway's own time of the request, part of the receipt: a retried batch lands in
-- the same partition, and a time range (the console's default view) reads only its months.
--
-- A partitioned table's unique constraints must include the partition key, so `receipts` keeps
-- `(id, received_at)` as its primary key, and the guarantees that need `id` or `(gateway, seq)`
-- alone move to `receipt_links`: one narrow, unpartitioned row per receipt (id, place in its
-- gateway's chain, hash), written in the same statement as the receipt. Ingest reads the chain
-- head and the already-stored ids there; lookups by id find the receipt's month there.
--
-- This migration creates only the DEFAULT partition and moves every existing receipt into it;
-- the API creates the monthly partitions (last month to two months ahead, and every month found
-- in the default partition, moving those rows) at start and every few hours:
-- packages/db/src/receipt-partitions.ts. It rewrites the table in one transaction: on a large
-- installation, run it in a maintenance window (gateways spool meanwhile; nothing is lost).

-- CreateTable
CREATE TABLE "receipt_links" (
    "id" TEXT NOT NULL,
    "gateway" TEXT NOT NULL,
    "seq" BIGINT NOT NULL,
    "received_at" TIMESTAMPTZ(3) NOT NULL,
    "hash" TEXT NOT NULL,

    CONSTRAINT "receipt_links_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "receipt_links_gateway_seq_key" ON "receipt_links"("gateway", "seq");

INSERT INTO "receipt_links" ("id", "gateway", "seq", "received_at", "hash")
SELECT "id", "gateway", "seq", "received_at", "hash" FROM "receipts";

-- The unpartitioned table steps aside, its index names with it.
ALTER TABLE "receipts" RENAME TO "receipts_unpartitioned";
ALTER TABLE "receipts_unpartitioned" RENAME CONSTRAINT "receipts_pkey" TO "receipts_unpartitioned_pkey";
ALTER INDEX "receipts_received_at_id_idx" RENAME TO "receipts_unpartitioned_received_at_id_idx";
ALTER INDEX "receipts_gateway_received_at_id_idx" RENAME TO "receipts_unpartitioned_gateway_received_at_id_idx";
ALTER INDEX "receipts_tools_idx" RENAME TO "receipts_unpartitioned_tools_idx";
ALTER INDEX "receipts_rules_idx" RENAME TO "receipts_unpartitioned_rules_idx";
ALTER INDEX "receipts_policies_idx" RENAME TO "receipts_unpartitioned_policies_idx";
ALTER INDEX "receipts_gateway_seq_key" RENAME TO "receipts_unpartitioned_gateway_seq_key";

-- CreateTable
CREATE TABLE "receipts" (
    "id" TEXT NOT NULL,
    "gateway" TEXT NOT NULL,
    "seq" BIGINT NOT NULL,
    "received_at" TIMESTAMPTZ(3) NOT NULL,
    "surface" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "stream" BOOLEAN NOT NULL,
    "status" INTEGER NOT NULL,
    "outcome" TEXT NOT NULL,
    "identity_human" TEXT,
    "identity_service" TEXT,
    "identity_session" TEXT,
    "binding" TEXT NOT NULL,
    "tools" TEXT[],
    "rules" TEXT[],
    "policies" TEXT[],
    "prev_hash" TEXT,
    "hash" TEXT NOT NULL,
    "body" JSONB NOT NULL,
    "tool_set_hash" TEXT,
    "ingested_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "receipts_pkey" PRIMARY KEY ("id", "received_at")
) PARTITION BY RANGE ("received_at");

-- CreateIndex
CREATE INDEX "receipts_received_at_id_idx" ON "receipts"("received_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "receipts_gateway_received_at_id_idx" ON "receipts"("gateway", "received_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "receipts_tools_idx" ON "receipts" USING GIN ("tools");

-- CreateIndex
CREATE INDEX "receipts_rules_idx" ON "receipts" USING GIN ("rules");

-- CreateIndex
CREATE INDEX "receipts_policies_idx" ON "receipts" USING GIN ("policies");

CREATE TABLE "receipts_default" PARTITION OF "receipts" DEFAULT;

INSERT INTO "receipts" ("id", "gateway", "seq", "received_at", "surface", "model", "stream",
    "status", "outcome", "identity_human", "identity_service", "identity_session", "binding",
    "tools", "rules", "policies", "prev_hash", "hash", "body", "tool_set_hash", "ingested_at")
SELECT "id", "gateway", "seq", "received_at", "surface", "model", "stream",
    "status", "outcome", "identity_human", "identity_service", "identity_session", "binding",
    "tools", "rules", "policies", "prev_hash", "hash", "body", "tool_set_hash", "ingested_at"
FROM "receipts_unpartitioned";

DROP TABLE "receipts_unpartitioned";
