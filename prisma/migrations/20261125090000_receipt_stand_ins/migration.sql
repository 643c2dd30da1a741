-- A receipt the API refuses for good stays in its gateway's quarantine file; the gateway ships a
-- stand-in for it (same id, prev_hash and hash, the refusal's reason, no body) so the receipts
-- after it still continue the chain. A stand-in is a chain link without a `receipts` row: the
-- stand-in as sent is kept here, and `stand_in IS NULL` for every link whose receipt is stored.

-- AlterTable
ALTER TABLE "receipt_links" ADD COLUMN "stand_in" JSONB;
