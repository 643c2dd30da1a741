import type { JsonObject, JsonValue } from '../json/json-value.ts';
import type { ToolMediationBlock, ToolRecord } from '../receipt/receipt-schema.ts';
import type { Fidelity } from '../resources/vocabulary.ts';
import { derivedFromFrozen } from './mediation-memo.ts';
import type { RequestTool, SurfaceAdapter } from './request-tool.ts';
import type { MediatedTool } from './response-decisions.ts';

/**
 * The provider request a catalog outcome makes of an agent's request: its tools, tool choice
 * and renames written through the surface's adapter.
 */

/**
 * Everything mediation decides from the tool catalog alone: a pure function of the catalog and
 * of which rules apply, so the bundle memoizes it (see {@link MediationMemo.catalog}).
 */
export interface CatalogOutcome {
  readonly entries: ReadonlyArray<MediatedTool>;
  /** The declarations the provider sees in `tools`, in order (one array, its text remembered). */
  readonly declarations: ReadonlyArray<JsonObject>;
  readonly changed: boolean;
  readonly mediation?: ToolMediationBlock;
  readonly tools: ToolRecord[];
  readonly schemas: ReadonlyMap<string, JsonObject>;
  readonly fidelity: ReadonlyMap<MediatedTool, Fidelity>;
}

/** Whether a tool came in the request's tool list (`tools`, or the legacy `functions`). */
export function isListed(tool: RequestTool): boolean {
  return tool.origin === 'tools' || tool.origin === 'functions';
}

/** What writing the provider request needs from a catalog outcome, whatever the request. */
interface CatalogEdits {
  /** The tools in the provider's `tools` array. */
  visible: ReadonlyArray<MediatedTool>;
  /** Every tool the provider is offered: `visible` and the typed `native_tools` kept. */
  offered: ReadonlyArray<MediatedTool>;
  /** Agent name → provider name, for the function tools (the agent's, hosted ones) the provider knows renamed. */
  renames: ReadonlyMap<string, string>;
  /** Request-level tools the provider must not see: hidden, or replaced by a function tool. */
  hiddenRequestLevel: ReadonlyArray<RequestTool>;
}

/** Per catalog outcome: a memoized one is shared by every request that sends its catalog. */
const CATALOG_EDITS = new WeakMap<CatalogOutcome, CatalogEdits>();

function catalogEdits(catalog: CatalogOutcome): CatalogEdits {
  const entries = catalog.entries;
  const visible = entries.filter((e) => e.inTools && e.visible);
  const renames = new Map<string, string>();
  for (const e of visible) {
    // Gateway-hosted tools too: the agent called them by their agent-facing name as well.
    const named = isListed(e.tool) || e.tool.origin === 'hosted';
    if (named && e.tool.kind === 'function' && e.providerName !== e.tool.name) {
      renames.set(e.tool.name, e.providerName);
    }
  }
  return {
    visible,
    offered: entries.filter((e) => e.visible && (e.inTools || e.tool.origin === 'native_tools')),
    renames,
    hiddenRequestLevel: entries
      .filter((e) => !isListed(e.tool) && e.tool.origin !== 'hosted')
      .filter((e) => !e.visible || e.inTools)
      .map((e) => e.tool),
  };
}

export function writeRequest(
  body: JsonObject,
  catalog: CatalogOutcome,
  adapter: SurfaceAdapter,
): JsonObject {
  const edits = derivedFromFrozen(CATALOG_EDITS, catalog, catalogEdits);
  const { renames, hiddenRequestLevel } = edits;
  const toolChoice = adapter.writeToolChoice
    ? adapter.writeToolChoice(body, edits.offered)
    : readToolChoice(body, adapter, edits.visible);
  return adapter.writeRequest(body, {
    declarations: catalog.declarations,
    toolChoice,
    hiddenRequestLevel,
    renames,
  });
}

/** The request's tool_choice kept, renamed, or dropped when it names no visible tool. */
function readToolChoice(
  body: JsonObject,
  adapter: SurfaceAdapter,
  visible: ReadonlyArray<MediatedTool>,
): JsonValue | undefined {
  const byAgentName = (name: string) => visible.find((e) => e.tool.name === name);
  const choice = adapter.readToolChoice(body);
  if (choice.kind === 'mode') return choice.raw;
  if (choice.kind === 'named') {
    const target = byAgentName(choice.name);
    return target ? adapter.renameToolChoice(choice, [target.providerName]) : undefined;
  }
  if (choice.kind === 'allowed') {
    const names = choice.names.flatMap((n) => byAgentName(n)?.providerName ?? []);
    return names.length > 0 ? adapter.renameToolChoice(choice, names) : undefined;
  }
  return undefined;
}
