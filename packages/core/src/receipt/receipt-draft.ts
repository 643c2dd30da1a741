import { hashString, type Sha256Hash } from '../hash/hash.ts';
import { canonicalize, canonicalizeMembers, type KnownMember } from '../json/canonical-json.ts';
import { type ReceiptHead, type ReceiptInput, receiptHead, receiptTail } from './build-receipt.ts';
import type { ChainedReceiptJson } from './chain.ts';
import type { ToolSet } from './receipt-schema.ts';
import { StorableNotes } from './storable-text.ts';
import { toolSetHash, toolSetOf } from './tool-set.ts';

/** What a receipt records that is known once the request has gone to the provider. */
export type ReceiptDraftInput = Omit<
  ReceiptInput,
  'completedAt' | 'latencyMs' | 'outcome' | 'response' | 'toolResults' | 'mcp' | 'hosted'
>;

/** The rest: how the request ended. */
export type ReceiptEnd = Pick<
  ReceiptInput,
  'completedAt' | 'latencyMs' | 'outcome' | 'response' | 'toolResults' | 'mcp' | 'hosted'
>;

/**
 * A receipt whose request side is built and serialized ahead, while the provider (or the MCP
 * server) works, so that
 * what is left once its answer arrives — and before the agent may get it — is the response side,
 * the chain link and the hash. `chainJson(end, prevHash)` gives exactly
 * `chainReceiptJson(buildReceiptBody({ ...input, ...end }), prevHash)` (a test holds them equal,
 * notes and limits included): the same receipt, the same text, the same hash.
 */
export class ReceiptDraft {
  readonly id: string;
  private readonly head: ReceiptHead;
  private readonly truncated: ReadonlyArray<string>;
  private readonly redacted: ReadonlyArray<string>;
  private readonly toolSet: ToolSet;
  private readonly toolSetHash: Sha256Hash;
  /** Canonical texts of the stored receipt's request-side members. */
  private readonly known = new Map<string, KnownMember>();

  constructor(private readonly input: ReceiptDraftInput) {
    this.id = input.id;
    const notes = new StorableNotes();
    this.head = receiptHead(input, notes);
    this.truncated = [...notes.truncated];
    this.redacted = [...notes.redacted];
    const { mediation } = input;
    this.toolSet = toolSetOf({
      tools: mediation.tools,
      ...(mediation.mediation ? { wardwright_tool_mediation: mediation.mediation } : {}),
    });
    this.toolSetHash = toolSetHash(this.toolSet);
    const members: Array<[string, unknown]> = [
      ['id', input.id],
      ['gateway', input.gateway],
      ['surface', mediation.response.surface],
      ['model', this.head.model],
      ['identity', this.head.identity],
      ['bundle', this.head.bundle],
      ['tool_set_hash', this.toolSetHash],
    ];
    for (const [key, value] of members) this.known.set(key, { value, text: canonicalize(value) });
  }

  /** The chained receipt in its stored form, as `chainReceiptJson` makes it. */
  chainJson(end: ReceiptEnd, prevHash: string | null): ChainedReceiptJson {
    const notes = new StorableNotes();
    notes.truncated.push(...this.truncated);
    notes.redacted.push(...this.redacted);
    const tail = receiptTail(end, notes);
    const { input, head } = this;
    // The stored receipt's members (buildReceiptBody's, the tool set by its hash), written out:
    // no object spreads on this path. Undefined members are left out, as canonicalize does.
    const stored: Record<string, unknown> = {
      schema: 'toolgate.receipt.v2',
      id: input.id,
      gateway: input.gateway,
      surface: input.mediation.response.surface,
      model: head.model,
      stream: input.mediation.stream,
      timestamps: { received_at: input.receivedAt, completed_at: end.completedAt },
      latency_ms: end.latencyMs,
      identity: head.identity,
      bundle: head.bundle,
      outcome: tail.outcome,
      response: tail.response,
      tool_results: tail.tool_results,
      mcp: tail.mcp,
      hosted: tail.hosted,
      redacted_paths: tail.redacted_paths,
      truncated_paths: tail.truncated_paths,
      tool_set_hash: this.toolSetHash,
      prev_hash: prevHash,
    };
    const canonical = canonicalizeMembers(stored, this.known);
    const hash = hashString(canonical);
    return {
      hash,
      json: `${canonical.slice(0, -1)},"hash":${JSON.stringify(hash)}}`,
      toolSetHash: this.toolSetHash,
      toolSet: this.toolSet,
    };
  }
}
