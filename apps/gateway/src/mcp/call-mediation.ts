import { performance } from 'node:perf_hooks';
import { ErrorCode, McpError, type ProgressToken } from '@modelcontextprotocol/sdk/types.js';
import {
  hashToolResult,
  type JsonObject,
  type JsonValue,
  type ToolCallEvidence,
  type ToolResultEvidence,
} from '@toolgate/core';
import type { ActiveBundle } from '../bundle/bundle-store.ts';
import type { McpCallTrace } from '../tracing/mcp-call-trace.ts';
import type { McpFinished } from './mcp-receipts.ts';
import type { McpRequestContext } from './mcp-request.ts';
import { mediatedList } from './mediation-cache.ts';
import type { ToolCatalog } from './tool-catalog.ts';
import { type UpstreamToolCaller, upstreamFailure } from './upstream-client.ts';

export interface ToolCallRequest {
  name: string;
  arguments?: Record<string, unknown>;
  /** The agent's progress token: upstream progress is streamed to it. */
  progressToken?: ProgressToken;
  requestId: string | number;
  signal: AbortSignal;
  sendProgress: (params: JsonObject) => Promise<void>;
  /** The call's spans, when tracing is on. */
  trace?: McpCallTrace;
  /** Called once the upstream has the call: what can be done while it works (the receipt's draft). */
  forwarded?: () => void;
}

/** What happened to one call: the answer for the agent and what the receipt says. */
export interface CallOutcome {
  /** A CallToolResult, or the JSON-RPC error the agent gets. */
  answer: { result: JsonObject } | { error: McpError };
  finished: Omit<McpFinished, 'mcp'> & { mcpError?: { code: number; message: string } };
  /** For the metrics. */
  outcome: 'ok' | 'tool_error' | 'refused' | 'withheld' | 'upstream_error';
}

/**
 * One `tools/call`: the name resolved through the same mediated list the agent was served
 * (renames mapped back; hidden, drift-blocked and unknown tools refused with -32602), the
 * call-time rules applied to the arguments through the engine's `decideCall` and the gateway's
 * call gate (deny, approval, rate limit: a withheld call is answered with an `isError` result
 * holding the explanation, as the LLM surfaces tell the agent), then forwarded upstream with
 * progress streamed through. The upstream failing is a JSON-RPC error and a 502 receipt.
 */
export async function mediateCall(
  context: McpRequestContext,
  upstream: UpstreamToolCaller,
  catalog: ToolCatalog,
  call: ToolCallRequest,
): Promise<CallOutcome> {
  const { active, server, facts, gate, record } = context;
  const started = performance.now();
  const list = mediatedList(active, server, catalog, facts);
  record.mediation = list.mediation;
  const response = gate ? list.mediation.responseFor(gate) : list.mediation.response;
  const judged = response.decideCall(String(call.requestId), call.name, call.arguments ?? {});
  record.mediationMs = performance.now() - started;
  call.trace?.mediated(started, started + record.mediationMs, list.mediation);
  const upstreamName = judged.name.slice(server.name.length + 1);
  const evidence: ToolCallEvidence = agentFacing(judged, call.name);
  if (judged.policy_state === 'blocked' && judged.decision === undefined) {
    const driftBlocked = judged.reason === 'not_declared' && list.driftBlocked(call.name);
    if (driftBlocked) evidence.reason = 'drift';
    const message = refusal(call.name, driftBlocked ? 'drift' : judged.reason);
    const error = new McpError(ErrorCode.InvalidParams, message);
    return {
      answer: { error },
      finished: {
        status: judged.reason === 'not_declared' && !driftBlocked ? 400 : 403,
        error: message,
        upstreamMs: 0,
        response: { tool_calls: [evidence], hosted_tool_events: [] },
        mcpError: { code: ErrorCode.InvalidParams, message },
      },
      outcome: 'refused',
    };
  }
  if (judged.policy_state !== 'allowed') {
    const message = judged.decision?.message ?? `Toolgate withheld this call to ${call.name}.`;
    return {
      answer: { result: { content: [{ type: 'text', text: message }], isError: true } },
      finished: {
        status: 403,
        upstreamMs: 0,
        response: { tool_calls: [evidence], hosted_tool_events: [] },
      },
      outcome: 'withheld',
    };
  }
  const sent = performance.now();
  // The upstream continues the trace: in `params._meta` (the MCP conventions) and, on the lean
  // path, as HTTP headers.
  const traceContext = call.trace?.upstream(new URL(server.url), upstreamName);
  let result: JsonObject;
  try {
    const answered = upstream.callTool(
      {
        name: upstreamName,
        ...(call.arguments ? { arguments: call.arguments } : {}),
        ...(traceContext ? { _meta: traceContext } : {}),
      },
      {
        timeoutMs: context.timeoutMs,
        signal: call.signal,
        ...(traceContext ? { headers: traceContext } : {}),
        ...(call.progressToken !== undefined
          ? {
              onprogress: (progress) => {
                void call.sendProgress({
                  ...progress,
                  progressToken: call.progressToken as string | number,
                });
              },
            }
          : {}),
      },
    );
    call.forwarded?.();
    result = await answered;
  } catch (error) {
    const failure = upstreamFailure(error, server.name);
    call.trace?.upstreamEnded({ code: failure.code });
    return {
      answer: { error: new McpError(failure.code, failure.message) },
      finished: {
        status: 502,
        error: failure.message,
        upstreamMs: performance.now() - sent,
        response: { tool_calls: [evidence], hosted_tool_events: [] },
        mcpError: { code: failure.code, message: failure.message },
      },
      outcome: 'upstream_error',
    };
  }
  const upstreamMs = performance.now() - sent;
  const isError = result.isError === true;
  call.trace?.upstreamEnded({ isError });
  return {
    answer: { result },
    finished: {
      status: 200,
      upstreamMs,
      response: { tool_calls: [evidence], hosted_tool_events: [] },
      toolResult: resultEvidence(active, result, evidence, call, upstreamMs),
    },
    outcome: isError ? 'tool_error' : 'ok',
  };
}

/**
 * The receipt's call as the agent made it: `name` the agent-facing name, `resolved_tool` the
 * upstream's `<server>/<tool>` it was mapped back to.
 */
function agentFacing(judged: ToolCallEvidence, calledName: string): ToolCallEvidence {
  const { provider_name: _provider, ...rest } = judged;
  return { ...rest, name: calledName, resolved_tool: judged.name };
}

function resultEvidence(
  active: ActiveBundle,
  result: JsonObject,
  evidence: ToolCallEvidence,
  call: ToolCallRequest,
  upstreamMs: number,
): ToolResultEvidence {
  // The result as the agent gets it, less `_meta` (transport bookkeeping, not the tool's answer).
  const { _meta: _ignored, ...content } = result;
  const { hash, redacted } = hashToolResult(content as JsonValue, active.compiled.redact);
  return {
    tool_call_id: String(call.requestId),
    action_id: evidence.action_id,
    result_hash: hash,
    is_error: result.isError === true,
    elapsed_ms: Math.round(upstreamMs * 1000) / 1000,
    ...(redacted.length > 0 ? { redacted_result: redacted } : {}),
  };
}

function refusal(name: string, reason: string | undefined): string {
  if (reason === 'hidden') return `Tool ${name} is hidden by policy`;
  if (reason === 'drift') {
    return `Tool ${name} is blocked: its definition changed since it was pinned (drift); an operator must accept the new definition`;
  }
  if (reason?.startsWith('meta_')) return `Tool ${name}: its target cannot be told`;
  return `Unknown tool: ${name}`;
}
