-- The audit log's time range filter (`since` / `until`): without this index a range far in the
-- past would read every newer entry first (gateways append a status entry every 30 s each).

-- CreateIndex
CREATE INDEX "audit_log_at_id_idx" ON "audit_log"("at", "id");
