/**
 * @toolgate/core — the pure Toolgate domain: resource schemas, canonical JSON and hashing,
 * the mediation engine (request and response side, streaming included) and receipts.
 * No I/O and no clock: time and ids are passed in.
 */

export * from './engine/action.ts';
export * from './engine/call-gate.ts';
export * from './engine/compile-bundle.ts';
export * from './engine/detect-surface.ts';
export * from './engine/duration.ts';
export * from './engine/hosted-budget.ts';
export * from './engine/hosted-tools.ts';
export * from './engine/identity-binding.ts';
export * from './engine/identity-match.ts';
export * from './engine/mediate-request.ts';
export * from './engine/meta-tools.ts';
export * from './engine/name-pattern.ts';
export * from './engine/provider-names.ts';
export * from './engine/redact.ts';
export {
  GEMINI_NAME_RULE,
  geminiAdapter,
  geminiToolList,
  isFunctionDeclaration,
} from './engine/surfaces/gemini.ts';
export * from './engine/surfaces/mcp-tools.ts';
export * from './engine/token-buckets.ts';
export * from './engine/tool-results.ts';
export * from './errors.ts';
export * from './hash/hash.ts';
export * from './json/canonical-json.ts';
export * from './json/canonical-order.ts';
export { deepFreeze, isDeeplyFrozen } from './json/deep-freeze.ts';
export * from './json/json-diff.ts';
export * from './json/json-text.ts';
export * from './json/json-value.ts';
export * from './json/key-order.ts';
export * from './json/request-parser.ts';
export * from './json/utf8-bytes.ts';
export * from './json/well-formed-text.ts';
export * from './log-redaction.ts';
export * from './read-only-check.ts';
export * from './receipt/build-receipt.ts';
export * from './receipt/chain.ts';
export * from './receipt/receipt-draft.ts';
export * from './receipt/receipt-limits.ts';
export * from './receipt/receipt-schema.ts';
export * from './receipt/tool-set.ts';
export * from './resources/index.ts';
export * from './response/enforce-response.ts';
export * from './response/index.ts';
export * from './secrets.ts';
export * from './seed/capability-contracts.ts';
export * from './seed/gemini-profile.ts';
export * from './seed/provider-profiles.ts';
export * from './stream/index.ts';
export * from './validate.ts';
