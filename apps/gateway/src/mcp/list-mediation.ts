import { performance } from 'node:perf_hooks';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import {
  type BundleMcpServer,
  type JsonObject,
  type MediationResult,
  mcpToolListRequest,
  mediateRequest,
  ValidationError,
} from '@toolgate/core';
import type { ActiveBundle } from '../bundle/bundle-store.ts';
import { checkDrift, type DriftCheck } from './drift-pins.ts';
import type { AgentRequestFacts } from './request-context.ts';
import type { ToolCatalog } from './tool-catalog.ts';
import { UpstreamFailure } from './upstream-client.ts';

/** A server's tool list as this request sees it: drift checked, then mediated by the bundle. */
export interface MediatedList {
  drift: DriftCheck;
  mediation: MediationResult;
  mediationMs: number;
  /**
   * Whether `name` is what the agent would call a drift-blocked tool by, had it not been blocked
   * (its own name, or the alias a rule gives it): such a call is told of the drift, not that the
   * tool is unknown. Resolved by the same rules on the list with the blocked tools left in.
   */
  driftBlocked(name: string): boolean;
}

/**
 * Mediates an upstream tool list for one agent request: drift-blocked tools are withheld first,
 * then the bundle's rules apply through the engine exactly as for an LLM request's tools
 * (surface `mcp`, names `<server>/<tool>`). The same call serves `tools/list` and the name
 * resolution of `tools/call`, so both always agree.
 */
export function mediateList(
  active: ActiveBundle,
  server: BundleMcpServer,
  catalog: ToolCatalog,
  facts: AgentRequestFacts,
): MediatedList {
  const started = performance.now();
  const drift = checkDrift(server, catalog.tools);
  // Unchanged by drift: the catalog's own frozen list, whose JSON text the memo already knows.
  const offered: ReadonlyArray<JsonObject> =
    drift.blocked.size === 0 ? catalog.list : drift.offered.map((t) => t.tool);
  const mediation = mediateTools(active, server, offered, facts);
  const mediationMs = performance.now() - started;
  if (drift.blocked.size === 0) return { drift, mediation, mediationMs, driftBlocked: () => false };
  let unblocked: MediationResult | undefined;
  const driftBlocked = (name: string): boolean => {
    unblocked ??= mediateTools(active, server, catalog.list, facts);
    const judged = unblocked.response.decideCall('drift-check', name, {});
    if (judged.reason === 'not_declared' || judged.reason === 'hidden') return false;
    return drift.blocked.has(judged.name.slice(server.name.length + 1));
  };
  return { drift, mediation, mediationMs, driftBlocked };
}

function mediateTools(
  active: ActiveBundle,
  server: BundleMcpServer,
  tools: ReadonlyArray<JsonObject>,
  facts: AgentRequestFacts,
): MediationResult {
  try {
    return mediateRequest(active.compiled, {
      surface: 'mcp',
      body: mcpToolListRequest(server.name, tools),
      identity: facts.rules,
    });
  } catch (error) {
    // The catalog was checked when fetched: a list the engine still cannot read is the upstream's.
    if (error instanceof ValidationError) {
      throw new UpstreamFailure(`MCP server ${server.name} listed tools the gateway cannot read`);
    }
    throw error;
  }
}

/** The tools the agent is served: the mediated list, in one page. */
export function servedTools(list: MediatedList): JsonObject[] {
  return list.mediation.body.tools as JsonObject[];
}

/** `tools/list` with a cursor: the gateway serves every tool in one page and issues none. */
export function refuseCursor(): McpError {
  return new McpError(
    ErrorCode.InvalidParams,
    'cursor: unknown; this gateway serves every tool in one page',
  );
}
