import { hashLenient } from '../hash/hash.ts';
import type { JsonValue } from '../json/json-value.ts';
import type { MetaTool } from '../resources/mediation-policy.ts';
import { DEFAULT_META_TOOLS, resolveMetaCall, splitQualifiedName } from './meta-tools.ts';
import { DEFAULT_REDACTED_KEYS, redactValue } from './redact.ts';

export interface ActionIdentity {
  human?: string;
  service?: string;
  session?: string;
}

/**
 * A tool call normalised the AARM way: what is being done (the resolved tool, with the
 * meta-tool wrapper peeled off), by whom, with which arguments, after which prior actions.
 */
export interface NormalizedAction {
  /** `act_` + 32 hex: a hash of tool, server, arguments and identity — same call, same id. */
  action_id: string;
  /** The tool actually targeted (`server/tool` for a resolved meta-tool call). */
  tool: string;
  server?: string;
  /** The meta-tool the call came through, if any. */
  via?: string;
  arguments: JsonValue;
  identity: ActionIdentity;
  context: {
    session?: string;
    /** How many actions preceded this one in the session. */
    sequence: number;
    prior_action_ids: string[];
  };
  redacted_paths: string[];
}

export interface ActionCall {
  name: string;
  /** Parsed arguments; a JSON string is parsed, unparseable text is kept as a string. */
  arguments: unknown;
}

export interface ActionOptions {
  identity?: ActionIdentity;
  /** Action ids of the session's earlier actions, oldest first, as the caller recorded them. */
  priorActions?: ReadonlyArray<string>;
  metaTools?: ReadonlyArray<MetaTool>;
  redact?: ReadonlyArray<string>;
}

export function normalizeAction(call: ActionCall, options: ActionOptions = {}): NormalizedAction {
  const parsed = parseArguments(call.arguments);
  const meta = resolveMetaCall(call.name, parsed, options.metaTools ?? DEFAULT_META_TOOLS);
  const { value, redacted } = redactValue(meta ? meta.arguments : parsed, [
    ...DEFAULT_REDACTED_KEYS,
    ...(options.redact ?? []),
  ]);
  const identity = compactIdentity(options.identity);
  const target = meta ?? mcpTarget(call.name);
  const tool = target ? target.qualifiedName : call.name;
  const action_id = actionId(tool, target?.server, value, identity);
  const prior = [...(options.priorActions ?? [])];
  return {
    action_id,
    tool,
    ...(target ? { server: target.server } : {}),
    ...(meta ? { via: meta.via } : {}),
    arguments: value,
    identity,
    context: {
      ...(identity.session ? { session: identity.session } : {}),
      sequence: prior.length,
      prior_action_ids: prior,
    },
    redacted_paths: redacted,
  };
}

export function actionId(
  tool: string,
  server: string | undefined,
  args: JsonValue,
  identity: ActionIdentity,
): string {
  const digest = hashLenient({ tool, server: server ?? null, arguments: args, identity });
  return `act_${digest.slice('sha256:'.length, 'sha256:'.length + 32)}`;
}

/**
 * MCP tools reach agents as `server/tool` or `mcp__server__tool`; both name the same action as
 * a meta-tool call carrying `{server, tool}`.
 */
function mcpTarget(name: string): { server: string; qualifiedName: string } | undefined {
  const target = splitQualifiedName(name);
  return target && { server: target.server, qualifiedName: `${target.server}/${target.tool}` };
}

/** Tool-call arguments as JSON: OpenAI sends a JSON string, Anthropic an object. */
export function parseArguments(raw: unknown): JsonValue {
  if (typeof raw === 'string') {
    if (raw.trim() === '') return {};
    try {
      return JSON.parse(raw) as JsonValue;
    } catch {
      return raw;
    }
  }
  if (raw === undefined) return {};
  return raw as JsonValue;
}

function compactIdentity(identity: ActionIdentity | undefined): ActionIdentity {
  const out: ActionIdentity = {};
  if (identity?.human) out.human = identity.human;
  if (identity?.service) out.service = identity.service;
  if (identity?.session) out.session = identity.session;
  return out;
}
