import type { MediationResult } from '../engine/mediate-request.ts';
import { scrubSecrets } from '../secrets.ts';
import type { ReceiptBody, ReceiptIdentity, ResponseEvidence } from './receipt-schema.ts';

/** Everything a receipt records about one gateway request. Clock and ids come from the caller. */
export interface ReceiptInput {
  id: string;
  gateway: string;
  /** ISO timestamps, injected so the same request always gives the same receipt. */
  receivedAt: string;
  completedAt: string;
  latencyMs: { total: number; mediation: number; upstream: number };
  identity: ReceiptIdentity;
  bundleEtag: string;
  mediation: Pick<
    MediationResult,
    'model' | 'stream' | 'mediation' | 'tools' | 'policies' | 'response'
  >;
  outcome: { status: number; error?: string };
  response?: ResponseEvidence;
}

/**
 * The receipt body (SPEC §3): the `wardwright_tool_mediation` block only when mediation changed
 * something, response-side evidence, and the paths redacted before hashing. Error text is
 * scrubbed of anything shaped like a credential.
 */
export function buildReceiptBody(input: ReceiptInput): ReceiptBody {
  const { mediation } = input;
  const redacted_paths: string[] = [];
  input.response?.tool_calls.forEach((call, index) => {
    for (const path of call.redacted_arguments ?? []) {
      redacted_paths.push(`response.tool_calls[${index}].arguments.${path}`);
    }
  });
  return {
    schema: 'toolgate.receipt.v2',
    id: input.id,
    gateway: input.gateway,
    surface: mediation.response.surface,
    model: mediation.model,
    stream: mediation.stream,
    timestamps: { received_at: input.receivedAt, completed_at: input.completedAt },
    latency_ms: input.latencyMs,
    identity: input.identity,
    bundle: { etag: input.bundleEtag, policies: [...mediation.policies] },
    outcome: {
      status: input.outcome.status,
      ...(input.outcome.error !== undefined ? { error: scrubSecrets(input.outcome.error) } : {}),
    },
    ...(mediation.mediation ? { wardwright_tool_mediation: mediation.mediation } : {}),
    tools: mediation.tools,
    ...(input.response ? { response: input.response } : {}),
    redacted_paths,
  };
}
