import { ValidationError } from '../errors.ts';
import { isJsonObject, type JsonObject, setJsonKey } from '../json/json-value.ts';
import type { BundleHostedTool } from '../resources/hosted-tool.ts';
import type { CompiledBundle, RequestFacts } from './compile-bundle.ts';
import { conditionApplies, conditionFor, toolFacts } from './condition-outcomes.ts';
import { type ResolvedHostedBudget, TOOL_INFO } from './hosted-budget.ts';
import type { KnownDeclaration } from './mediation-memo.ts';
import type { FunctionParts, RequestTool, SurfaceAdapter } from './request-tool.ts';
import type { Entry } from './rule-application.ts';

/**
 * Gateway-hosted tools on the request side (docs/hosted-tools.md): the HostedTools `host` rules
 * offer a request, the compact declaration `compact` rules advertise, the built-in `tool_info`
 * that gives the full one back, and the plan the gateway's tool loop runs by.
 */

/** What runs a hosted tool the model may call, by the name the provider sees. */
export interface HostedOffer {
  /** `tool_info`, or the HostedTool resource's name. */
  tool: string;
  /** The HostedTool (absent for `tool_info`). */
  resource?: BundleHostedTool;
}

/** A compacted tool's full declaration, as `tool_info` describes it. */
export interface CompactedTool {
  /** The name the model sees (and calls it by). */
  name: string;
  description?: string;
  parameters?: JsonObject;
}

/** The request's tool loop: what is hosted, what tool_info knows, and the budget. */
export interface HostedPlan {
  offers: ReadonlyMap<string, HostedOffer>;
  /** Compacted tools by the name the model sees. */
  compacted: ReadonlyMap<string, CompactedTool>;
  budget: ResolvedHostedBudget;
}

/** Whether the bundle can host anything: otherwise nothing of this module runs. */
export function bundleHosts(bundle: CompiledBundle): boolean {
  return bundle.hostRules.length > 0 || bundle.rules.some((r) => r.rule.action === 'compact');
}

/**
 * The HostedTools the bundle's `host` rules offer this request: request-level selectors, then
 * `when` with `tool` as the hosted tool (an erroring condition does not offer it). A rule naming
 * a HostedTool the bundle lacks offers nothing.
 */
export function offeredHostedTools(
  bundle: CompiledBundle,
  facts: RequestFacts,
  adapter: SurfaceAdapter,
  firstIndex: number,
): RequestTool[] {
  const out: RequestTool[] = [];
  const seen = new Set<string>();
  for (const rule of bundle.hostRules) {
    if (rule.mode === 'observe' || rule.rule.action !== 'host') continue;
    const resource = bundle.hostedTools.get(rule.rule.tool);
    if (resource === undefined || seen.has(resource.name) || !rule.appliesTo(facts)) continue;
    const { tool } = resource.spec;
    const outcome = conditionFor(rule, facts, toolFacts(tool.name, 'wardwright', 'function'));
    if (outcome !== undefined && !(outcome === true || conditionApplies(rule, outcome))) continue;
    seen.add(resource.name);
    out.push({
      name: tool.name,
      type: 'function',
      kind: 'function',
      declaredBy: 'wardwright',
      executedBy: 'wardwright',
      raw: adapter.writeFunction({
        name: tool.name,
        description: tool.description,
        parameters: tool.parameters,
      }),
      origin: 'hosted',
      index: firstIndex + out.length,
      hostedBy: resource.name,
    });
  }
  return out;
}

const ELLIPSIS = '…';

/** A description cut to `max` characters (code points), an ellipsis marking the cut. */
export function shortenDescription(text: string, max: number | undefined): string | undefined {
  if (max === undefined) return text;
  if (max === 0) return undefined;
  const chars = Array.from(text);
  if (chars.length <= max) return text;
  return `${chars.slice(0, Math.max(0, max - 1)).join('')}${ELLIPSIS}`;
}

/**
 * The compact declaration: name, description (cut to `descriptionMax`), and a permissive schema
 * naming the parameters only (each accepts any value; nothing required; no other keyword), so
 * whatever the full schema accepts, the compact one accepts too.
 */
export function compactParts(full: FunctionParts, descriptionMax?: number): FunctionParts {
  const parts: FunctionParts = { name: full.name };
  if (full.description !== undefined) {
    const description = shortenDescription(full.description, descriptionMax);
    if (description !== undefined) parts.description = description;
  }
  const properties: JsonObject = {};
  const declared = full.parameters?.properties;
  if (isJsonObject(declared)) {
    for (const name of Object.keys(declared)) setJsonKey(properties, name, {});
  }
  parts.parameters = { type: 'object', properties };
  return parts;
}

/** The declaration of `tool_info` (under the name the budget gives it). */
export function toolInfoParts(name: string): FunctionParts {
  return {
    name,
    description:
      'Some tools are offered in compact form: their parameters are named but not described. ' +
      `Before calling one, call ${name} with its name for a summary, or with include_schema: true ` +
      'for its full JSON Schema, and call the tool with arguments that match it.',
    parameters: {
      type: 'object',
      properties: {
        name: { type: 'string', description: 'The tool name, exactly as offered.' },
        include_schema: {
          type: 'boolean',
          description: 'Return the full JSON Schema of its parameters (default: a summary).',
        },
      },
      required: ['name'],
      additionalProperties: false,
    },
  };
}

/**
 * Adds `tool_info` when a rule compacted a tool, after refusing an agent tool that would take
 * its name (a 400 naming the field, unless a policy renames one of them).
 */
export function addToolInfo(
  entries: Entry[],
  adapter: SurfaceAdapter,
  budget: ResolvedHostedBudget,
  identify: (tool: RequestTool) => KnownDeclaration,
  kind: string,
): void {
  if (!entries.some((e) => e.full !== undefined && e.visible)) return;
  const name = budget.toolInfoName;
  const clash = entries.find(
    (e) => e.visible && e.inTools && e.tool.origin !== 'hosted' && e.providerName === name,
  );
  if (clash !== undefined) {
    const field = clash.tool.path ?? `${clash.tool.origin}[${clash.tool.index}]`;
    throw new ValidationError(kind, [
      {
        field: `${field}.name`,
        message: `"${name}" is the gateway's hosted tool while tools are compacted: rename the agent's tool, or set the policy's hosted.toolInfoName`,
      },
    ]);
  }
  const tool: RequestTool = {
    name,
    type: 'function',
    kind: 'function',
    declaredBy: 'wardwright',
    executedBy: 'wardwright',
    raw: adapter.writeFunction(toolInfoParts(name)),
    origin: 'hosted',
    index: entries.filter((e) => e.tool.origin === 'hosted').length,
    hostedBy: TOOL_INFO,
  };
  const known = identify(tool);
  entries.push({
    tool,
    kind: 'function',
    type: 'function',
    decl: tool.raw,
    key: known.key,
    hash: known.hash,
    originalHash: known.hash,
    state: 'allowed',
    visible: true,
    inTools: true,
    providerName: name,
  });
}

/** The plan of a mediated request, or undefined when it offers no hosted tool. */
export function hostedPlan(
  entries: ReadonlyArray<Entry>,
  bundle: CompiledBundle,
): HostedPlan | undefined {
  const offers = new Map<string, HostedOffer>();
  const compacted = new Map<string, CompactedTool>();
  for (const entry of entries) {
    if (!entry.visible) continue;
    const by = entry.tool.hostedBy;
    if (by !== undefined) {
      const resource = by === TOOL_INFO ? undefined : bundle.hostedTools.get(by);
      offers.set(entry.providerName, resource ? { tool: by, resource } : { tool: by });
    } else if (entry.full !== undefined) {
      compacted.set(entry.providerName, { ...entry.full, name: entry.providerName });
    }
  }
  if (offers.size === 0) return undefined;
  return { offers, compacted, budget: bundle.hostedBudget };
}
