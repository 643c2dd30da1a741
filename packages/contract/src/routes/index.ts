import type { RouteDef } from '../route.ts';
import { auditRouteTable } from './audit.ts';
import { gatewaySyncRouteTable } from './gateway-sync.ts';
import { hostedToolRouteTable } from './hosted-tools.ts';
import { identityRouteTable } from './identities.ts';
import { mcpServerRouteTable } from './mcp-servers.ts';
import { overviewRouteTable } from './overview.ts';
import { policyRouteTable } from './policies.ts';
import { receiptRouteTable } from './receipts.ts';
import { resourceRouteTable } from './resources.ts';
import { syncRouteTable } from './sync.ts';
import { systemRouteTable } from './system.ts';
import { toolCallApprovalRouteTable } from './tool-call-approvals.ts';

/** Every route of the API, by `group.name`. The single source for server, client and docs. */
export const ROUTES = {
  ...prefixed('system', systemRouteTable),
  ...prefixed('mediationPolicies', resourceRouteTable.mediationPolicies),
  ...prefixed('identities', resourceRouteTable.identities),
  ...prefixed('capabilityContracts', resourceRouteTable.capabilityContracts),
  ...prefixed('providerProfiles', resourceRouteTable.providerProfiles),
  ...prefixed('gateways', resourceRouteTable.gateways),
  ...prefixed('gatewaySync', gatewaySyncRouteTable),
  ...prefixed('toolCallApprovals', toolCallApprovalRouteTable),
  ...prefixed('mcpServers', mcpServerRouteTable),
  ...prefixed('hostedTools', hostedToolRouteTable),
  ...prefixed('policies', policyRouteTable),
  ...prefixed('tokens', identityRouteTable),
  ...prefixed('sync', syncRouteTable),
  ...prefixed('receipts', receiptRouteTable),
  ...prefixed('overview', overviewRouteTable),
  ...prefixed('audit', auditRouteTable),
};
export type Routes = typeof ROUTES;
export type RouteName = keyof Routes;

type Prefixed<P extends string, T> = { [K in keyof T & string as `${P}.${K}`]: T[K] };

function prefixed<P extends string, T extends Record<string, RouteDef>>(
  prefix: P,
  table: T,
): Prefixed<P, T> {
  return Object.fromEntries(
    Object.entries(table).map(([name, def]) => [`${prefix}.${name}`, def]),
  ) as Prefixed<P, T>;
}
