import type { HostedCallEvidence, JsonValue } from '@toolgate/core';

/**
 * The seam between the gateway's tool loop (`tool-loop*.ts`) and what runs a hosted tool: the
 * built-in `tool_info` and the HTTP executor of `HostedTool` resources (`http-tool-executor.ts`).
 * An executor never throws for a failing tool: every failure is an outcome the model is told
 * and the receipt records.
 */
export interface HostedCall {
  /** The provider's call id. */
  id: string;
  /** The name the model called (the hosted tool's `tool.name`, or `tool_info`). */
  name: string;
  /** The call's arguments, parsed (a model may send anything: executors validate). */
  arguments: JsonValue;
  /** Aborted when the agent goes away or the loop's latency budget ends. */
  signal: AbortSignal;
  /** W3C trace context of the request's span, propagated to HTTP endpoints when tracing is on. */
  traceparent?: string;
}

export interface HostedResult {
  outcome: HostedCallEvidence['outcome'];
  isError: boolean;
  /**
   * What the model is told as the tool's result: the endpoint's answer (after redaction), or a
   * short, secret-free description of the failure.
   */
  content: string;
  /** The endpoint's HTTP status, when it answered. */
  status?: number;
  durationMs: number;
  /** Result paths replaced by `[REDACTED]` (dotted, as the HostedTool's `redact` names them). */
  redactedPaths?: string[];
}

export interface HostedToolExecutor {
  execute(call: HostedCall): Promise<HostedResult>;
}
