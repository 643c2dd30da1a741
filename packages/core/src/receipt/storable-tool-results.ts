import type { ToolResults } from '../engine/tool-results.ts';
import { RECEIPT_LIMITS } from './receipt-limits.ts';
import type { ToolResultEvidence } from './receipt-schema.ts';
import { storableList } from './storable-evidence.ts';
import { type StorableNotes, utf8ByteLength } from './storable-text.ts';

/**
 * The tool results an agent sent back, as a receipt may hold them: each id well-formed and cut
 * to {@link RECEIPT_LIMITS.toolCallId} (as the call's own id is cut, so a long id still links),
 * `elapsed_ms` a finite non-negative number or null, and the list cut once its JSON passes
 * {@link RECEIPT_LIMITS.toolResultsBytes}. Undefined when there are none, so the receipt has no
 * `tool_results` field at all (and hashes as receipts always did).
 */
export function storableToolResults(
  results: ToolResults | undefined,
  notes: StorableNotes,
): ToolResultEvidence[] | undefined {
  if (results === undefined || results.entries.length === 0) return undefined;
  let budget = RECEIPT_LIMITS.toolResultsBytes;
  const out: ToolResultEvidence[] = [];
  let cut = results.truncated;
  for (const [index, result] of results.entries.entries()) {
    const entry = storableResult(result, `tool_results[${index}]`, notes);
    const bytes = utf8ByteLength(JSON.stringify(entry));
    if (bytes > budget) {
      cut = true;
      break;
    }
    budget -= bytes;
    out.push(entry);
  }
  if (cut) notes.cut('tool_results', true);
  return out;
}

function storableResult(
  result: ToolResultEvidence,
  at: string,
  notes: StorableNotes,
): ToolResultEvidence {
  const elapsed = result.elapsed_ms;
  const out: ToolResultEvidence = {
    tool_call_id: notes.text(`${at}.tool_call_id`, result.tool_call_id, RECEIPT_LIMITS.toolCallId),
    result_hash: result.result_hash,
    is_error: result.is_error,
    elapsed_ms:
      typeof elapsed === 'number' && Number.isFinite(elapsed) && elapsed >= 0 ? elapsed : null,
  };
  if (result.action_id !== undefined) out.action_id = result.action_id;
  if (result.redacted_result !== undefined) {
    out.redacted_result = storableList(
      `${at}.redacted_result`,
      result.redacted_result,
      RECEIPT_LIMITS.redactedArgumentsPerCall,
      RECEIPT_LIMITS.evidenceText,
      notes,
    );
  }
  return out;
}
