import type {
  McpEvidence,
  MediationResult,
  ReceiptDraft,
  ReceiptEnd,
  ReceiptIdentity,
  ResponseEvidence,
  ToolResultEvidence,
} from '@toolgate/core';
import type { Logger } from 'pino';
import type { ActiveBundle } from '../bundle/bundle-store.ts';
import type { GatewayMetrics } from '../metrics.ts';
import {
  draftReceipt,
  type ReceiptSink,
  receiptInputOf,
  receiptTiming,
} from '../receipts/receipt-recorder.ts';
import { SpoolFailedError, SpoolFullError } from '../spool/errors.ts';

/** Everything an MCP receipt records about one JSON-RPC request, filled in as it goes. */
export interface McpRequestRecord {
  id: string;
  /** Wall-clock ms when the HTTP request arrived. */
  receivedAt: number;
  /** performance.now() at the same moment. */
  started: number;
  active: ActiveBundle;
  identity: ReceiptIdentity;
  /** The server's tool list as mediated for this request (empty for resources and prompts). */
  mediation: MediationResult;
  mediationMs: number;
  /**
   * The receipt's request side, built while the upstream works (`McpReceipts.draftSoon`), and
   * the mediation it was built from: a draft of another mediation is not used.
   */
  draft?: { draft: ReceiptDraft; of: MediationResult };
  /** Set once the receipt is recorded: a draft still scheduled then is not made. */
  recorded?: boolean;
}

export interface McpFinished {
  /** An HTTP-like status: 200 answered, 400 bad request, 403 refused, 502 upstream failed. */
  status: number;
  error?: string;
  upstreamMs: number;
  mcp: McpEvidence;
  response?: ResponseEvidence;
  toolResult?: ToolResultEvidence;
}

/** Whether the receipt is durable; if not, the JSON-RPC error the agent gets instead. */
export type McpRecorded = { ok: true } | { ok: false; message: string };

export interface McpReceiptsDependencies {
  gateway: string;
  recorder: ReceiptSink;
  metrics: Pick<GatewayMetrics, 'spoolRejected'>;
  log: Pick<Logger, 'error'>;
  now: () => number;
}

/**
 * MCP receipts, in the same chain, spool and shipper as the LLM surfaces' (the recorder): spooled
 * before the agent's answer is sent. When the spool refuses, the agent gets an error instead of
 * the answer, as on the LLM surfaces: nothing the gateway forwarded goes unrecorded silently.
 */
export class McpReceipts {
  constructor(private readonly deps: McpReceiptsDependencies) {}

  full(): boolean {
    return this.deps.recorder.full();
  }

  /**
   * Builds the receipt's request side once the upstream has the request (a `setImmediate`: after
   * the request's own synchronous work and its write), so that less is left between the
   * upstream's answer and the agent's. A draft that cannot be made is left out: `record` then
   * builds the whole receipt, and says why it cannot.
   */
  draftSoon(record: McpRequestRecord): void {
    if (this.deps.recorder.drafts === false) return;
    setImmediate(() => {
      if (record.recorded || record.draft?.of === record.mediation) return;
      const draft = draftReceipt(this.deps.gateway, record);
      if (draft) record.draft = { of: record.mediation, draft };
    });
  }

  async record(record: McpRequestRecord, finished: McpFinished): Promise<McpRecorded> {
    const { mediation } = record;
    record.recorded = true;
    const end: ReceiptEnd = {
      ...receiptTiming(this.deps.now(), record, finished.upstreamMs),
      outcome: {
        status: finished.status,
        ...(finished.error ? { error: finished.error } : {}),
      },
      ...(finished.response ? { response: finished.response } : {}),
      ...(finished.toolResult
        ? { toolResults: { entries: [finished.toolResult], truncated: false } }
        : {}),
      mcp: finished.mcp,
    };
    const drafted = record.draft?.of === mediation ? record.draft.draft : undefined;
    try {
      await this.deps.recorder.record(
        drafted
          ? { id: record.id, draft: drafted, end }
          : receiptInputOf(this.deps.gateway, record, end),
        mediation.schemas,
      );
      return { ok: true };
    } catch (error) {
      if (error instanceof SpoolFullError) {
        this.deps.metrics.spoolRejected.inc();
        return { ok: false, message: 'gateway receipt spool is full; retry later' };
      }
      if (!(error instanceof SpoolFailedError)) {
        this.deps.log.error({ err: error, receipt: record.id }, 'MCP receipt could not be built');
        return { ok: false, message: 'gateway could not record this request' };
      }
      this.deps.log.error({ err: error, receipt: record.id }, 'MCP receipt could not be spooled');
      return { ok: false, message: 'gateway cannot record receipts right now' };
    }
  }
}
