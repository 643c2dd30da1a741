-- Receipts v2 reference their tool set (per-tool records and the mediation block) by content
-- hash instead of carrying it inline: one row per distinct tool set, shared by every receipt
-- with the same tool list under the same policy. v1 receipts keep their tool set inline and
-- have no tool_set_hash.

-- CreateTable
CREATE TABLE "tool_sets" (
    "hash" TEXT NOT NULL,
    "body" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "tool_sets_pkey" PRIMARY KEY ("hash")
);

-- AlterTable
ALTER TABLE "receipts" ADD COLUMN "tool_set_hash" TEXT;
