-- A tool call is released in one receipt and its result comes back in the agent's next
-- request's receipt. One narrow row per call and per result (with an action id) of each stored
-- receipt, written in the receipt's ingest statement, lets the API link the two both ways.

-- CreateTable
CREATE TABLE "receipt_tool_calls" (
    "receipt_id" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "tool_call_id" TEXT NOT NULL,
    "action_id" TEXT NOT NULL,
    "gateway" TEXT NOT NULL,
    "received_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "receipt_tool_calls_pkey" PRIMARY KEY ("receipt_id","role","tool_call_id")
);

-- CreateIndex
CREATE INDEX "receipt_tool_calls_tool_call_id_action_id_idx" ON "receipt_tool_calls"("tool_call_id", "action_id");
