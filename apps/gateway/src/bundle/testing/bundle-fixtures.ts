import type { GatewayBundle } from '@toolgate/contract';
import { hashCanonical, MediationPolicySpec, type MediationPolicySpecInput } from '@toolgate/core';

/** A bundle as the API would send it (raw JSON, as parsed off the wire) and its ETag. */
export function bundleOf(
  gateway: string,
  policies: Array<{ name: string; spec: MediationPolicySpecInput }>,
): { bundle: GatewayBundle; etag: string } {
  const bundle: GatewayBundle = {
    apiVersion: 'toolgate.dev/v1',
    kind: 'GatewayBundle',
    gateway,
    policies: policies.map((p, index) => {
      const spec = MediationPolicySpec.parse(p.spec);
      return { name: p.name, generation: index + 1, hash: hashCanonical(spec), spec };
    }),
    identities: [{ name: 'alice', type: 'human', roles: ['agent'] }],
    contracts: [],
    profiles: [],
    mcpServers: [],
  };
  return { bundle: JSON.parse(JSON.stringify(bundle)), etag: hashCanonical(bundle) };
}

export const HIDE_PRS = {
  name: 'guardrails',
  spec: { rules: [{ id: 'hide-prs', action: 'hide', match: { name: 'create_pull_request' } }] },
} satisfies { name: string; spec: MediationPolicySpecInput };

export const HIDE_DELETES = {
  name: 'no-deletes',
  spec: { rules: [{ id: 'hide-deletes', action: 'hide', match: { name: 'delete_*' } }] },
} satisfies { name: string; spec: MediationPolicySpecInput };
