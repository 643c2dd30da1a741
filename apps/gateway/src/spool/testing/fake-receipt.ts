import { chainReceipt, type Receipt, type ReceiptBody, type ToolRecord } from '@toolgate/core';

/** A schema-valid receipt body of roughly `approxBytes` of JSON (padded with tool records). */
export function fakeReceiptBody(id: string, approxBytes = 3_000): ReceiptBody {
  const tools: ToolRecord[] = [];
  for (let i = 0; tools.length * 230 < approxBytes - 600; i++) {
    tools.push({
      name: `tool_number_${i}_for_${id}`,
      type: 'function',
      declared_by: 'agent',
      executed_by: 'agent',
      visible_to_provider: true,
      visible_to_agent: true,
      policy_state: 'allowed',
      fidelity: 'pass_through',
      schema_hash: `sha256:${(i % 16).toString(16).repeat(64)}`,
    });
  }
  return {
    schema: 'toolgate.receipt.v2',
    id,
    gateway: 'gw-spool-test',
    surface: 'openai-chat',
    model: 'gpt-test',
    stream: false,
    timestamps: {
      received_at: '2026-01-02T03:04:05.000Z',
      completed_at: '2026-01-02T03:04:05.250Z',
    },
    latency_ms: { total: 250, mediation: 0.4, upstream: 249 },
    identity: { human: 'alice', session: 's1', binding: 'verified' },
    bundle: { etag: `sha256:${'e'.repeat(64)}`, policies: [] },
    outcome: { status: 200 },
    tools,
    redacted_paths: [],
  };
}

/** The next receipt of the chain whose head is `prevHash`. */
export function fakeReceipt(id: string, prevHash: string | null, approxBytes?: number): Receipt {
  return chainReceipt(fakeReceiptBody(id, approxBytes), prevHash);
}
