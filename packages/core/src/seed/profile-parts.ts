import type { ProviderCapability } from '../resources/provider-profile.ts';

/** The approval, replay and privacy of a capability nothing executes on a surface. */
export const NOT_APPLICABLE = 'Not applicable: nothing is executed on this surface.';

/** A capability the surface does not host: nothing on the wire, so nothing to prove. */
export function notOffered(contract: string, where: string): ProviderCapability {
  return {
    contract,
    nativeTypes: [],
    fidelity: 'opaque',
    requestSchema: 'Not offered on this surface.',
    eventShape: 'None.',
    citations: 'None.',
    gaps: [
      `Not offered on this surface. ${where}`,
      'A function tool the agent declares and executes itself (e.g. its own implementation of ' +
        'this capability) is agent execution passed through unchanged, not this provider-hosted ' +
        'contract, and is receipted as an ordinary tool call.',
    ],
    approval: NOT_APPLICABLE,
    replay: NOT_APPLICABLE,
    privacy: NOT_APPLICABLE,
  };
}
