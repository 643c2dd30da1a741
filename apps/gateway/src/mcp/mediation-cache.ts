import {
  type BundleMcpServer,
  type MediationResult,
  mcpToolListRequest,
  mediateRequest,
  type RuleIdentity,
} from '@toolgate/core';
import type { ActiveBundle } from '../bundle/bundle-store.ts';
import { type MediatedList, mediateList } from './list-mediation.ts';
import type { AgentRequestFacts } from './request-context.ts';
import type { ToolCatalog } from './tool-catalog.ts';

/**
 * A mediated tool list is a pure function of the bundle in force, the server's entry in it (its
 * pins), the upstream's list and the rules' view of the identity: every `tools/call` of a session
 * used to mediate the whole list again (and an empty list for the receipt's placeholder). These
 * caches keep one per such key, so a call costs a lookup and the judging of its own arguments.
 * Each is held by the objects it depends on (weakly: a new bundle or a refetched list drops it)
 * and bounded in identities per list (an agent may vary its claims per request).
 */
const MAX_IDENTITIES = 64;

interface ListEntry {
  active: ActiveBundle;
  server: BundleMcpServer;
  byIdentity: Map<string, MediatedList>;
}

const LISTS = new WeakMap<ToolCatalog, ListEntry>();

/** The catalog mediated for these facts (without a call gate: `responseFor` adds one per call). */
export function mediatedList(
  active: ActiveBundle,
  server: BundleMcpServer,
  catalog: ToolCatalog,
  facts: AgentRequestFacts,
): MediatedList {
  let entry = LISTS.get(catalog);
  if (entry === undefined || entry.active !== active || entry.server !== server) {
    entry = { active, server, byIdentity: new Map() };
    LISTS.set(catalog, entry);
  }
  const key = identityKey(facts.rules);
  let list = entry.byIdentity.get(key);
  if (list === undefined) {
    if (entry.byIdentity.size >= MAX_IDENTITIES) entry.byIdentity.clear();
    list = mediateList(active, server, catalog, facts);
    entry.byIdentity.set(key, list);
  }
  return list;
}

const NO_TOOLS = Object.freeze([]) as ReadonlyArray<never>;
const PLACEHOLDERS = new WeakMap<ActiveBundle, Map<string, MediationResult>>();

/**
 * The mediation of an empty tool list: the receipt's placeholder for a request that lists no
 * tools (resources, prompts), so it still records the bundle's policies and the `mcp` surface.
 */
export function placeholderMediation(
  active: ActiveBundle,
  server: BundleMcpServer,
  facts: AgentRequestFacts,
): MediationResult {
  let byKey = PLACEHOLDERS.get(active);
  if (byKey === undefined) {
    byKey = new Map();
    PLACEHOLDERS.set(active, byKey);
  }
  const key = `${server.name}\u0000${identityKey(facts.rules)}`;
  let mediation = byKey.get(key);
  if (mediation === undefined) {
    if (byKey.size >= MAX_IDENTITIES * 16) byKey.clear();
    mediation = mediateRequest(active.compiled, {
      surface: 'mcp',
      body: mcpToolListRequest(server.name, NO_TOOLS),
      identity: facts.rules,
    });
    byKey.set(key, mediation);
  }
  return mediation;
}

const IDENTITY_KEYS = new WeakMap<RuleIdentity, string>();

/**
 * Everything of the identity the rules may read, as one string (property order is fixed). A
 * request's rules object is looked up twice (placeholder, then list): serialized once.
 */
function identityKey(rules: RuleIdentity): string {
  let key = IDENTITY_KEYS.get(rules);
  if (key === undefined) {
    key = JSON.stringify(rules);
    IDENTITY_KEYS.set(rules, key);
  }
  return key;
}
