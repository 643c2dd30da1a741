import type { AuditEntry } from '@toolgate/contract';

/** Where an audit entry's object, or the change itself, can be seen; undefined: nowhere. */
export function objectLink(entry: AuditEntry): { to: string; label: string } | undefined {
  const name = encodeURIComponent(entry.name);
  const generation = Number(entry.details.generation);
  switch (entry.kind) {
    case 'MediationPolicy': {
      // A spec change made a new generation: show it against the one before.
      const specChanged =
        (entry.verb === 'update' || entry.verb === 'rollback') &&
        entry.beforeHash !== entry.afterHash &&
        Number.isInteger(generation) &&
        generation > 1;
      if (specChanged) {
        return {
          to: `/policies/${name}?tab=diff&from=${generation - 1}&to=${generation}`,
          label: `diff of generations ${generation - 1} and ${generation}`,
        };
      }
      return entry.verb === 'delete' ? undefined : { to: `/policies/${name}`, label: 'policy' };
    }
    case 'Gateway':
      return entry.verb === 'delete' ? undefined : { to: `/gateways/${name}`, label: 'gateway' };
    case 'McpServer':
      return entry.verb === 'delete'
        ? undefined
        : { to: `/mcp-servers/${name}`, label: 'MCP server' };
    case 'HostedTool':
      return entry.verb === 'delete'
        ? undefined
        : { to: `/hosted-tools/${name}`, label: 'hosted tool' };
    case 'ToolCallApproval':
      return { to: `/approvals/${name}`, label: 'approval' };
    case 'Identity':
      return { to: '/identities', label: 'identities' };
    case 'CapabilityContract':
    case 'ProviderProfile':
      return { to: '/fidelity', label: 'fidelity matrix' };
    default:
      return undefined;
  }
}
