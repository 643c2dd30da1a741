import { RESOURCE_KINDS, type ResourceKind } from '@toolgate/contract';
import { BadRequestError } from '@toolgate/core';

export type { ResourceKind };

/** The route group of each kind in the contract's route table (`mediationPolicies.get`, …). */
export const ROUTE_GROUPS = {
  MediationPolicy: 'mediationPolicies',
  Identity: 'identities',
  CapabilityContract: 'capabilityContracts',
  ProviderProfile: 'providerProfiles',
  Gateway: 'gateways',
  ToolCallApproval: 'toolCallApprovals',
  McpServer: 'mcpServers',
  HostedTool: 'hostedTools',
} as const satisfies Record<ResourceKind, string>;

const SHORT_NAMES: Record<ResourceKind, string[]> = {
  MediationPolicy: ['policy', 'policies', 'mp'],
  Identity: ['id', 'ids'],
  CapabilityContract: ['contract', 'contracts', 'cc'],
  ProviderProfile: ['profile', 'profiles', 'pp'],
  Gateway: ['gw', 'gws'],
  ToolCallApproval: ['approval', 'approvals', 'tca'],
  McpServer: ['mcp', 'mcpserver', 'mcps'],
  HostedTool: ['hosted', 'hostedtool', 'ht'],
};

/**
 * Kinds only the API writes (gateways request approvals, operators decide them): `get` reads
 * them, `apply` and `diff` refuse them.
 */
export const API_WRITTEN_KINDS: ReadonlySet<ResourceKind> = new Set(['ToolCallApproval']);

const ALIASES = new Map<string, ResourceKind>();
for (const kind of Object.keys(RESOURCE_KINDS) as ResourceKind[]) {
  for (const alias of [kind, RESOURCE_KINDS[kind].plural, ...SHORT_NAMES[kind]]) {
    ALIASES.set(alias.toLowerCase(), kind);
  }
}

export const KIND_NAMES = Object.keys(RESOURCE_KINDS) as ResourceKind[];

export function isResourceKind(kind: unknown): kind is ResourceKind {
  return typeof kind === 'string' && Object.hasOwn(RESOURCE_KINDS, kind);
}

/** `policy`, `policies`, `mediationpolicy`, `MediationPolicy`, `mp` … → `MediationPolicy`. */
export function resolveKind(text: string): ResourceKind {
  const kind = ALIASES.get(text.toLowerCase());
  if (!kind) {
    throw new BadRequestError(
      `unknown resource type "${text}"; one of: ${KIND_NAMES.map((k) => k.toLowerCase()).join(', ')} (or policy, identity, contract, profile, gateway, approval)`,
    );
  }
  return kind;
}

/** How objects are named in output, kubectl-style: `mediationpolicy/github-guardrails`. */
export function objectRef(kind: string, name: string): string {
  return `${kind.toLowerCase()}/${name}`;
}

/** Help text listing the kinds and their aliases. */
export function kindsHelp(): string {
  return KIND_NAMES.map(
    (kind) =>
      `  ${kind.padEnd(20)} ${[RESOURCE_KINDS[kind].plural, ...SHORT_NAMES[kind]].join(', ')}`,
  ).join('\n');
}
