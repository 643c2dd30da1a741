import {
  BundleHostedTool,
  BundleMcpServer,
  CapabilityContractSpec,
  IdentityType,
  MediationPolicySpec,
  ProviderProfileSpec,
  Role,
} from '@toolgate/core';
import { z } from 'zod';
import { decimalInteger } from '../decimal-integer.ts';
import { route } from '../route.ts';
import { API_PREFIX, NameParams } from './resources.ts';

/**
 * Everything a gateway needs to mediate, and nothing secret: the policies its labels select in
 * merged order, the identities it binds requests to, contracts, provider profiles and MCP servers. Its ETag
 * is the canonical hash of this document.
 */
export const GatewayBundle = z.object({
  apiVersion: z.literal('toolgate.dev/v1'),
  kind: z.literal('GatewayBundle'),
  gateway: z.string(),
  policies: z.array(
    z.object({
      name: z.string(),
      generation: z.number().int(),
      hash: z.string(),
      spec: MediationPolicySpec,
    }),
  ),
  identities: z.array(
    z.object({
      name: z.string(),
      type: IdentityType,
      roles: z.array(Role),
      /**
       * The identity's live tokens as SHA-256 hashes (never the secrets), so the gateway can bind
       * an agent by its Toolgate token without asking the API. Revoking a token removes it here.
       */
      tokens: z
        .array(
          z.object({
            sha256: z.string().regex(/^[0-9a-f]{64}$/),
            expiresAt: z.iso.datetime({ offset: true }).nullable(),
          }),
        )
        .optional(),
    }),
  ),
  contracts: z.array(CapabilityContractSpec),
  profiles: z.array(ProviderProfileSpec),
  /**
   * Every McpServer, by name: its upstream, headers (secrets by reference only), drift mode and
   * pinned definition hashes. Absent from a bundle of an API that predates MCP: no servers.
   */
  mcpServers: z.array(BundleMcpServer).default([]),
  /**
   * Every HostedTool, by name: the declaration the model sees and the endpoint the gateway calls
   * (secrets by reference only). Absent when there are none (so bundles without hosted tools keep
   * the ETag they had before hosted tools existed).
   */
  hostedTools: z.array(BundleHostedTool).optional(),
});
export type GatewayBundle = z.infer<typeof GatewayBundle>;

export const syncRouteTable = {
  bundle: route({
    method: 'GET',
    path: `${API_PREFIX}/gateways/{name}/bundle`,
    tag: 'Sync',
    summary:
      'The gateway bundle. With If-None-Match and wait=N, long-polls up to N s: 304 when unchanged',
    access: { roles: ['operator', 'gateway'], ownGateway: true },
    params: NameParams,
    query: z.object({ wait: decimalInteger(0, 60).optional() }).strict(),
    response: GatewayBundle,
  }),
};
