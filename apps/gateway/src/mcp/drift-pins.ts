import type { BundleMcpServer, JsonObject, McpEvidence } from '@toolgate/core';

/** One tool of the upstream's list, with the definition and hash it is pinned by. */
export interface ObservedTool {
  name: string;
  /** The tool exactly as the upstream listed it (frozen): what the agent is served. */
  tool: JsonObject;
  /** `mcpToolDefinition(tool)`: what the API pins and what the observation reports. */
  definition: JsonObject;
  /** `mcpToolDefinitionHash(definition)`. */
  hash: string;
}

export type DriftFinding = NonNullable<McpEvidence['drifted']>[number];

export interface DriftCheck {
  /** The tools the agent may be offered: all but those blocked for drift. */
  offered: ObservedTool[];
  /** Tools whose definition differs from the bundle's pin. */
  drifted: DriftFinding[];
  /** Names of the drifted tools hidden and refused (`drift: block`). */
  blocked: ReadonlySet<string>;
}

/**
 * Compares each tool's definition hash with the bundle's pin. No pin: first sight, allowed (the
 * API pins it from this gateway's observation). A different hash is a drift: `warn` offers the
 * tool anyway, `block` withholds it until the bundle's pin changes (an operator accepted the new
 * definition, or the server went back to the pinned one).
 */
export function checkDrift(
  server: BundleMcpServer,
  tools: ReadonlyArray<ObservedTool>,
): DriftCheck {
  const offered: ObservedTool[] = [];
  const drifted: DriftFinding[] = [];
  const blocked = new Set<string>();
  const block = server.drift === 'block';
  for (const tool of tools) {
    const pinned = Object.hasOwn(server.pins, tool.name) ? server.pins[tool.name] : undefined;
    if (pinned === undefined || pinned === tool.hash) {
      offered.push(tool);
      continue;
    }
    drifted.push({
      tool: tool.name,
      pinned,
      seen: tool.hash,
      action: block ? 'blocked' : 'warned',
    });
    if (block) blocked.add(tool.name);
    else offered.push(tool);
  }
  return { offered, drifted, blocked };
}
