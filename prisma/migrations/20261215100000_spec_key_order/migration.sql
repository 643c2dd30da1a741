-- An object's spec as it was written: `jsonb` stores object keys sorted its own way (shortest
-- first), so a policy applied as `rules:` then `mode:` came back the other way round and the
-- policy editor showed the operator's document reordered after Apply. `json` keeps the text, so
-- the key order the API stores (the writer's: inKeyOrderOf in packages/core) is the order it
-- serves. Nothing queries a resource's spec in SQL; the queries that read a revision's rules
-- cast it to jsonb. Specs are small (a policy: a few kilobytes) and hashed canonically, so the
-- type changes neither their size much nor any hash. Existing specs keep jsonb's order.
ALTER TABLE "resources" ALTER COLUMN "spec" TYPE JSON USING "spec"::json;

-- Revisions are immutable (their trigger refuses UPDATE); a type change is no UPDATE.
ALTER TABLE "policy_revisions" ALTER COLUMN "spec" TYPE JSON USING "spec"::json;
