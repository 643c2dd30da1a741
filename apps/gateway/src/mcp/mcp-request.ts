import { performance } from 'node:perf_hooks';
import type { BundleMcpServer, CallGate } from '@toolgate/core';
import type { ActiveBundle } from '../bundle/bundle-store.ts';
import type { CallGates } from '../calls/call-gates.ts';
import { ReceiptRecorder } from '../receipts/receipt-recorder.ts';
import type { McpRequestRecord } from './mcp-receipts.ts';
import { placeholderMediation } from './mediation-cache.ts';
import type { AgentRequestFacts } from './request-context.ts';

/** One JSON-RPC request of an agent on `/mcp/<server>`, as its handler sees it. */
export interface McpRequestContext {
  active: ActiveBundle;
  server: BundleMcpServer;
  facts: AgentRequestFacts;
  /** Approvals and rate limits for call-time rules; absent when the bundle has none. */
  gate?: CallGate;
  /** The receipt being filled in (its mediation replaced by the tool list's for tools/*). */
  record: McpRequestRecord;
  /** Upstream request timeout (ms). */
  timeoutMs: number;
}

/**
 * The context of one request: the receipt's id and record, with the (cached) mediation of an
 * empty tool list as a placeholder, so a request that lists no tools (resources, prompts) still
 * records the bundle's policies and the `mcp` surface.
 */
export function requestContext(
  active: ActiveBundle,
  server: BundleMcpServer,
  facts: AgentRequestFacts,
  calls: CallGates | undefined,
  timeoutMs: number,
): McpRequestContext {
  const id = ReceiptRecorder.newId(facts.receivedAt);
  const gate =
    active.compiled.callRules.length > 0
      ? calls?.forRequest({ receiptId: id, surface: 'mcp', identity: facts.identity })
      : undefined;
  const started = performance.now();
  const mediation = placeholderMediation(active, server, facts);
  return {
    active,
    server,
    facts,
    ...(gate ? { gate } : {}),
    timeoutMs,
    record: {
      id,
      receivedAt: facts.receivedAt,
      started: facts.started,
      active,
      identity: facts.identity,
      mediation,
      mediationMs: performance.now() - started,
    },
  };
}
