-- Every tool name any stored receipt holds (offered or called), once: the receipt list's
-- substring search (`toolContains`) finds the matching names here, a few thousand rows at most,
-- then reads the receipts through the GIN index on `receipts.tools`, instead of scanning every
-- receipt's array. Written in the receipts' ingest statement; names are never removed (a name
-- with no receipt left just matches nothing).

-- CreateTable
CREATE TABLE "receipt_tool_names" (
    "name" TEXT NOT NULL,

    CONSTRAINT "receipt_tool_names_pkey" PRIMARY KEY ("name")
);

-- The names of the receipts stored before this table existed.
INSERT INTO "receipt_tool_names" ("name")
SELECT DISTINCT unnest("tools") FROM "receipts"
ON CONFLICT DO NOTHING;
