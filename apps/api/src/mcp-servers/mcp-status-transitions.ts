import { MCP_LIMITS, type McpDrift, type McpServerStatus, type McpToolPin } from '@toolgate/core';
import type { StoredObject } from '../resources/stored-object.ts';

/**
 * What an McpServer's status becomes on each observation and accept, as pure functions of the
 * current status and `now`: the services call them under the row lock, so two gateways
 * reporting the same change at once are decided one after the other (one pin, one drift).
 */

/** A gateway reports often: an observation that changes nothing is written at most this often. */
export const OBSERVATION_REFRESH_MS = 60_000;

export type Status = McpServerStatus & Record<string, unknown>;

/** One tool of an observation: its name and the hash the API computed of its definition. */
export interface ObservedTool {
  name: string;
  hash: string;
}

export function statusOf(object: StoredObject): Status {
  const status = (object.status ?? {}) as Partial<McpServerStatus>;
  return {
    ...status,
    conditions: status.conditions ?? [],
    tools: status.tools ?? [],
    drifts: status.drifts ?? [],
  } as Status;
}

/** Every definition hash the status refers to: the definitions its diffs may show. */
export function knownHashes(status: McpServerStatus): Set<string> {
  const hashes = new Set<string>();
  for (const tool of status.tools) hashes.add(tool.pinned).add(tool.latest);
  for (const drift of status.drifts) hashes.add(drift.from).add(drift.to);
  return hashes;
}

/**
 * The status after a gateway (`by`) observed `tools`, or `undefined` when nothing is worth
 * writing: no tool is new or changed, and the last observation is under a minute old.
 * - a new tool is pinned as first seen (trust on first use);
 * - the same definition as latest only moves `lastSeenAt`;
 * - a definition other than the pinned one opens a drift (an older open one is superseded);
 * - the pinned definition again reverts the tool's open drifts.
 * Tools the server no longer lists keep their pins: one coming back changed is still a drift.
 */
export function observedStatus(
  before: Status,
  tools: ReadonlyArray<ObservedTool>,
  by: string,
  now: Date,
  newDriftId: () => string,
): Status | undefined {
  const at = now.toISOString();
  const pins = new Map(before.tools.map((tool) => [tool.name, tool]));
  let drifts = [...before.drifts];
  let changed = false;
  const resolveOpen = (tool: string, state: McpDrift['state']) => {
    drifts = drifts.map((drift) =>
      drift.tool === tool && drift.state === 'open'
        ? { ...drift, state, resolvedAt: at, resolvedBy: by }
        : drift,
    );
  };
  for (const { name, hash } of tools) {
    const pin = pins.get(name);
    if (pin === undefined) {
      pins.set(name, {
        name,
        pinned: hash,
        latest: hash,
        firstSeenAt: at,
        firstSeenBy: by,
        lastSeenAt: at,
      });
      changed = true;
      continue;
    }
    const next: McpToolPin = { ...pin, latest: hash, lastSeenAt: at };
    pins.set(name, next);
    if (hash === pin.latest) continue;
    changed = true;
    if (hash === pin.pinned) {
      resolveOpen(name, 'reverted');
    } else {
      resolveOpen(name, 'superseded');
      drifts.push({
        id: newDriftId(),
        tool: name,
        from: pin.pinned,
        to: hash,
        detectedAt: at,
        detectedBy: by,
        state: 'open',
      });
    }
  }
  const fresh =
    before.observedAt !== undefined &&
    now.getTime() - Date.parse(before.observedAt) < OBSERVATION_REFRESH_MS;
  if (!changed && fresh) return undefined;
  return {
    ...before,
    tools: [...pins.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
    drifts: trimDrifts(drifts),
    observedAt: at,
  };
}

/**
 * The status after an operator accepted `tool`'s latest definition: pinned, its open drifts
 * `accepted`. `undefined` when there is nothing to accept (pinned already, no open drift).
 */
export function acceptedStatus(
  before: Status,
  tool: McpToolPin,
  operator: string,
  now: Date,
): Status | undefined {
  const hasOpen = before.drifts.some((d) => d.tool === tool.name && d.state === 'open');
  if (tool.pinned === tool.latest && !hasOpen) return undefined;
  const at = now.toISOString();
  return {
    ...before,
    tools: before.tools.map((t) => (t.name === tool.name ? { ...t, pinned: t.latest } : t)),
    drifts: before.drifts.map((drift) =>
      drift.tool === tool.name && drift.state === 'open'
        ? { ...drift, state: 'accepted', resolvedAt: at, resolvedBy: operator }
        : drift,
    ),
  };
}

/** At most MCP_LIMITS.drifts events, dropping the oldest resolved ones first, then the oldest. */
export function trimDrifts(drifts: ReadonlyArray<McpDrift>): McpDrift[] {
  const kept = [...drifts];
  while (kept.length > MCP_LIMITS.drifts) {
    const resolved = kept.findIndex((drift) => drift.state !== 'open');
    kept.splice(resolved === -1 ? 0 : resolved, 1);
  }
  return kept;
}
