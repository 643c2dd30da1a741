// Generated from ROUTES by `pnpm contract:route-index`: do not edit.
// route-index.test.ts fails when it no longer matches ROUTES.
import type { RouteShape } from '../route.ts';
import type { RouteName } from './index.ts';

/**
 * Every route's method, path and access, without its schemas: what a client needs to call it
 * and the console to hide what a role may not do. The console imports this instead of ROUTES,
 * so the browser never loads the API's validation code (zod refinements, the CEL compiler).
 */
export const ROUTE_INDEX: Readonly<Record<RouteName, RouteShape>> = {
  'system.healthz': { method: 'GET', path: '/healthz', access: { anonymous: true } },
  'system.readyz': { method: 'GET', path: '/readyz', access: { anonymous: true } },
  'system.openapi': { method: 'GET', path: '/docs/openapi.json', access: { anonymous: true } },
  'system.docs': { method: 'GET', path: '/docs', access: { anonymous: true } },
  'mediationPolicies.list': {
    method: 'GET',
    path: '/apis/toolgate.dev/v1/mediationpolicies',
    access: { roles: ['operator', 'auditor'] },
  },
  'mediationPolicies.create': {
    method: 'POST',
    path: '/apis/toolgate.dev/v1/mediationpolicies',
    access: { roles: ['operator'] },
  },
  'mediationPolicies.get': {
    method: 'GET',
    path: '/apis/toolgate.dev/v1/mediationpolicies/{name}',
    access: { roles: ['operator', 'auditor'] },
  },
  'mediationPolicies.replace': {
    method: 'PUT',
    path: '/apis/toolgate.dev/v1/mediationpolicies/{name}',
    access: { roles: ['operator'] },
  },
  'mediationPolicies.delete': {
    method: 'DELETE',
    path: '/apis/toolgate.dev/v1/mediationpolicies/{name}',
    access: { roles: ['operator'] },
  },
  'mediationPolicies.replaceStatus': {
    method: 'PUT',
    path: '/apis/toolgate.dev/v1/mediationpolicies/{name}/status',
    access: { roles: ['operator'] },
  },
  'identities.list': {
    method: 'GET',
    path: '/apis/toolgate.dev/v1/identities',
    access: { roles: ['operator', 'auditor'] },
  },
  'identities.create': {
    method: 'POST',
    path: '/apis/toolgate.dev/v1/identities',
    access: { roles: ['operator'] },
  },
  'identities.get': {
    method: 'GET',
    path: '/apis/toolgate.dev/v1/identities/{name}',
    access: { roles: ['operator', 'auditor'] },
  },
  'identities.replace': {
    method: 'PUT',
    path: '/apis/toolgate.dev/v1/identities/{name}',
    access: { roles: ['operator'] },
  },
  'identities.delete': {
    method: 'DELETE',
    path: '/apis/toolgate.dev/v1/identities/{name}',
    access: { roles: ['operator'] },
  },
  'identities.replaceStatus': {
    method: 'PUT',
    path: '/apis/toolgate.dev/v1/identities/{name}/status',
    access: { roles: ['operator'] },
  },
  'capabilityContracts.list': {
    method: 'GET',
    path: '/apis/toolgate.dev/v1/capabilitycontracts',
    access: { roles: ['operator', 'auditor'] },
  },
  'capabilityContracts.create': {
    method: 'POST',
    path: '/apis/toolgate.dev/v1/capabilitycontracts',
    access: { roles: ['operator'] },
  },
  'capabilityContracts.get': {
    method: 'GET',
    path: '/apis/toolgate.dev/v1/capabilitycontracts/{name}',
    access: { roles: ['operator', 'auditor'] },
  },
  'capabilityContracts.replace': {
    method: 'PUT',
    path: '/apis/toolgate.dev/v1/capabilitycontracts/{name}',
    access: { roles: ['operator'] },
  },
  'capabilityContracts.delete': {
    method: 'DELETE',
    path: '/apis/toolgate.dev/v1/capabilitycontracts/{name}',
    access: { roles: ['operator'] },
  },
  'capabilityContracts.replaceStatus': {
    method: 'PUT',
    path: '/apis/toolgate.dev/v1/capabilitycontracts/{name}/status',
    access: { roles: ['operator'] },
  },
  'providerProfiles.list': {
    method: 'GET',
    path: '/apis/toolgate.dev/v1/providerprofiles',
    access: { roles: ['operator', 'auditor'] },
  },
  'providerProfiles.create': {
    method: 'POST',
    path: '/apis/toolgate.dev/v1/providerprofiles',
    access: { roles: ['operator'] },
  },
  'providerProfiles.get': {
    method: 'GET',
    path: '/apis/toolgate.dev/v1/providerprofiles/{name}',
    access: { roles: ['operator', 'auditor'] },
  },
  'providerProfiles.replace': {
    method: 'PUT',
    path: '/apis/toolgate.dev/v1/providerprofiles/{name}',
    access: { roles: ['operator'] },
  },
  'providerProfiles.delete': {
    method: 'DELETE',
    path: '/apis/toolgate.dev/v1/providerprofiles/{name}',
    access: { roles: ['operator'] },
  },
  'providerProfiles.replaceStatus': {
    method: 'PUT',
    path: '/apis/toolgate.dev/v1/providerprofiles/{name}/status',
    access: { roles: ['operator'] },
  },
  'gateways.list': {
    method: 'GET',
    path: '/apis/toolgate.dev/v1/gateways',
    access: { roles: ['operator', 'auditor', 'gateway'], ownGateway: true },
  },
  'gateways.create': {
    method: 'POST',
    path: '/apis/toolgate.dev/v1/gateways',
    access: { roles: ['operator'] },
  },
  'gateways.get': {
    method: 'GET',
    path: '/apis/toolgate.dev/v1/gateways/{name}',
    access: { roles: ['operator', 'auditor', 'gateway'], ownGateway: true },
  },
  'gateways.replace': {
    method: 'PUT',
    path: '/apis/toolgate.dev/v1/gateways/{name}',
    access: { roles: ['operator'] },
  },
  'gateways.delete': {
    method: 'DELETE',
    path: '/apis/toolgate.dev/v1/gateways/{name}',
    access: { roles: ['operator'] },
  },
  'gateways.replaceStatus': {
    method: 'PUT',
    path: '/apis/toolgate.dev/v1/gateways/{name}/status',
    access: { roles: ['operator', 'gateway'], ownGateway: true },
  },
  'gatewaySync.list': {
    method: 'GET',
    path: '/apis/toolgate.dev/v1/gateway-sync',
    access: { roles: ['operator', 'auditor'] },
  },
  'gatewaySync.history': {
    method: 'GET',
    path: '/apis/toolgate.dev/v1/gateways/{name}/sync-history',
    access: { roles: ['operator', 'auditor'] },
  },
  'toolCallApprovals.list': {
    method: 'GET',
    path: '/apis/toolgate.dev/v1/toolcallapprovals',
    access: { roles: ['operator', 'auditor', 'gateway'] },
  },
  'toolCallApprovals.get': {
    method: 'GET',
    path: '/apis/toolgate.dev/v1/toolcallapprovals/{name}',
    access: { roles: ['operator', 'auditor', 'gateway'] },
  },
  'toolCallApprovals.delete': {
    method: 'DELETE',
    path: '/apis/toolgate.dev/v1/toolcallapprovals/{name}',
    access: { roles: ['operator'] },
  },
  'toolCallApprovals.request': {
    method: 'POST',
    path: '/apis/toolgate.dev/v1/toolcallapprovals/{name}/request',
    access: { roles: ['gateway'] },
  },
  'toolCallApprovals.decide': {
    method: 'PUT',
    path: '/apis/toolgate.dev/v1/toolcallapprovals/{name}/approval',
    access: { roles: ['operator'] },
  },
  'mcpServers.list': {
    method: 'GET',
    path: '/apis/toolgate.dev/v1/mcpservers',
    access: { roles: ['operator', 'auditor'] },
  },
  'mcpServers.create': {
    method: 'POST',
    path: '/apis/toolgate.dev/v1/mcpservers',
    access: { roles: ['operator'] },
  },
  'mcpServers.get': {
    method: 'GET',
    path: '/apis/toolgate.dev/v1/mcpservers/{name}',
    access: { roles: ['operator', 'auditor'] },
  },
  'mcpServers.replace': {
    method: 'PUT',
    path: '/apis/toolgate.dev/v1/mcpservers/{name}',
    access: { roles: ['operator'] },
  },
  'mcpServers.delete': {
    method: 'DELETE',
    path: '/apis/toolgate.dev/v1/mcpservers/{name}',
    access: { roles: ['operator'] },
  },
  'mcpServers.observe': {
    method: 'POST',
    path: '/apis/toolgate.dev/v1/mcpservers/{name}/observations',
    access: { roles: ['gateway'] },
  },
  'mcpServers.accept': {
    method: 'POST',
    path: '/apis/toolgate.dev/v1/mcpservers/{name}/accept',
    access: { roles: ['operator'] },
  },
  'mcpServers.definition': {
    method: 'GET',
    path: '/apis/toolgate.dev/v1/mcpservers/{name}/definitions/{hash}',
    access: { roles: ['operator', 'auditor'] },
  },
  'hostedTools.list': {
    method: 'GET',
    path: '/apis/toolgate.dev/v1/hostedtools',
    access: { roles: ['operator', 'auditor'] },
  },
  'hostedTools.create': {
    method: 'POST',
    path: '/apis/toolgate.dev/v1/hostedtools',
    access: { roles: ['operator'] },
  },
  'hostedTools.get': {
    method: 'GET',
    path: '/apis/toolgate.dev/v1/hostedtools/{name}',
    access: { roles: ['operator', 'auditor'] },
  },
  'hostedTools.replace': {
    method: 'PUT',
    path: '/apis/toolgate.dev/v1/hostedtools/{name}',
    access: { roles: ['operator'] },
  },
  'hostedTools.delete': {
    method: 'DELETE',
    path: '/apis/toolgate.dev/v1/hostedtools/{name}',
    access: { roles: ['operator'] },
  },
  'policies.revisions': {
    method: 'GET',
    path: '/apis/toolgate.dev/v1/mediationpolicies/{name}/revisions',
    access: { roles: ['operator', 'auditor'] },
  },
  'policies.revision': {
    method: 'GET',
    path: '/apis/toolgate.dev/v1/mediationpolicies/{name}/revisions/{generation}',
    access: { roles: ['operator', 'auditor'] },
  },
  'policies.diff': {
    method: 'POST',
    path: '/apis/toolgate.dev/v1/mediationpolicies/{name}/diff',
    access: { roles: ['operator', 'auditor'] },
  },
  'policies.rollback': {
    method: 'POST',
    path: '/apis/toolgate.dev/v1/mediationpolicies/{name}/rollback',
    access: { roles: ['operator'] },
  },
  'policies.preview': {
    method: 'POST',
    path: '/apis/toolgate.dev/v1/mediationpolicypreviews',
    access: { roles: ['operator', 'auditor'] },
  },
  'tokens.issueToken': {
    method: 'POST',
    path: '/apis/toolgate.dev/v1/identities/{name}/tokens',
    access: { roles: ['operator'] },
  },
  'tokens.listTokens': {
    method: 'GET',
    path: '/apis/toolgate.dev/v1/identities/{name}/tokens',
    access: { roles: ['operator', 'auditor'] },
  },
  'tokens.revokeToken': {
    method: 'DELETE',
    path: '/apis/toolgate.dev/v1/identities/{name}/tokens/{tokenId}',
    access: { roles: ['operator'] },
  },
  'tokens.whoami': {
    method: 'GET',
    path: '/apis/toolgate.dev/v1/whoami',
    access: { roles: ['operator', 'auditor', 'gateway', 'agent'] },
  },
  'sync.bundle': {
    method: 'GET',
    path: '/apis/toolgate.dev/v1/gateways/{name}/bundle',
    access: { roles: ['operator', 'gateway'], ownGateway: true },
  },
  'receipts.ingest': {
    method: 'POST',
    path: '/apis/toolgate.dev/v1/gateways/{name}/receipts',
    access: { roles: ['gateway'], ownGateway: true },
  },
  'receipts.list': {
    method: 'GET',
    path: '/apis/toolgate.dev/v1/receipts',
    access: { roles: ['operator', 'auditor'] },
  },
  'receipts.count': {
    method: 'GET',
    path: '/apis/toolgate.dev/v1/receipt-count',
    access: { roles: ['operator', 'auditor'] },
  },
  'receipts.values': {
    method: 'GET',
    path: '/apis/toolgate.dev/v1/receipt-values/{field}',
    access: { roles: ['operator', 'auditor'] },
  },
  'receipts.get': {
    method: 'GET',
    path: '/apis/toolgate.dev/v1/receipts/{id}',
    access: { roles: ['operator', 'auditor'] },
  },
  'receipts.toolLinks': {
    method: 'GET',
    path: '/apis/toolgate.dev/v1/receipts/{id}/tool-links',
    access: { roles: ['operator', 'auditor'] },
  },
  'receipts.verify': {
    method: 'GET',
    path: '/apis/toolgate.dev/v1/gateways/{name}/receipts/verify',
    access: { roles: ['operator', 'auditor'] },
  },
  'receipts.putSchema': {
    method: 'PUT',
    path: '/apis/toolgate.dev/v1/schemas/{hash}',
    access: { roles: ['operator', 'gateway'] },
  },
  'receipts.getSchema': {
    method: 'GET',
    path: '/apis/toolgate.dev/v1/schemas/{hash}',
    access: { roles: ['operator', 'auditor', 'gateway'] },
  },
  'overview.get': {
    method: 'GET',
    path: '/apis/toolgate.dev/v1/receipts/overview',
    access: { roles: ['operator', 'auditor'] },
  },
  'audit.list': {
    method: 'GET',
    path: '/apis/toolgate.dev/v1/auditlog',
    access: { roles: ['operator', 'auditor'] },
  },
};
