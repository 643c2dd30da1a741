-- Why a generation was made (the operator's change note) and, for a rollback, the generation it
-- restored: shown in the policy's history. Both optional, so existing revisions stay as they are.
ALTER TABLE "policy_revisions" ADD COLUMN "change_note" TEXT;
ALTER TABLE "policy_revisions" ADD COLUMN "rollback_of" INTEGER;
ALTER TABLE "policy_revisions" ADD CONSTRAINT "policy_revisions_change_note_length" CHECK (char_length("change_note") <= 500);
