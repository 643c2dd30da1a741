import { z } from 'zod';
import { ContractId } from './capability-contract.ts';
import { Conditions, defineResource, defineResourceInput } from './envelope.ts';
import { Fidelity, Surface } from './vocabulary.ts';

const Prose = z.string().max(4096, 'must be at most 4096 characters');

/**
 * What one provider surface offers for one capability contract, and what Toolgate can prove
 * about it. Every field is a claim an auditor reads next to a receipt, so each says what is and
 * is not observable rather than what the provider's marketing calls the feature.
 */
export const ProviderCapability = z
  .object({
    contract: ContractId,
    /**
     * The provider's own identifiers for the capability: tool `type` values such as
     * `web_search_20250305`, or, where a request field switches it on instead of a tool entry,
     * that field's name. Empty when the surface does not offer the capability.
     */
    nativeTypes: z.array(z.string().min(1, 'must not be empty').max(128)),
    /** How much Toolgate can prove about calls through this surface. */
    fidelity: Fidelity,
    /** The provider-visible request: how the capability is declared and configured. */
    requestSchema: Prose,
    /** The shape of what comes back (content blocks, annotations, stream events). */
    eventShape: Prose,
    /** What source or citation metadata the response carries. */
    citations: Prose,
    /** Parts of the execution that are hidden, opaque or unverifiable from the wire. */
    gaps: z.array(z.string().min(1, 'must not be empty').max(1024)),
    /** Who approves a call, whether Toolgate can stop it, and what it can change. */
    approval: Prose,
    /** Whether a recorded call can be re-run or re-verified later, and why not. */
    replay: Prose,
    /** Where request data goes and what is retained, as far as the provider documents it. */
    privacy: Prose,
  })
  .strict()
  .superRefine((capability, ctx) => {
    // With no native type there is nothing on the wire to observe, so any fidelity better than
    // opaque would be a claim without evidence.
    if (capability.nativeTypes.length === 0 && capability.fidelity !== 'opaque') {
      ctx.addIssue({
        code: 'custom',
        path: ['fidelity'],
        message: 'must be "opaque" when nativeTypes is empty (nothing is observable)',
      });
    }
  });
export type ProviderCapability = z.infer<typeof ProviderCapability>;

/** One provider API surface and its capability matrix. */
export const ProviderProfileSpec = z
  .object({
    surface: Surface,
    displayName: z.string().min(1, 'must not be empty').max(256),
    capabilities: z.array(ProviderCapability),
  })
  .strict()
  .superRefine((spec, ctx) => {
    // One entry per contract, and one contract per native type: otherwise fidelityFor and
    // contractForNativeType would depend on array order.
    const contracts = new Map<string, number>();
    const nativeTypes = new Map<string, number>();
    spec.capabilities.forEach((capability, index) => {
      const first = contracts.get(capability.contract);
      if (first === undefined) contracts.set(capability.contract, index);
      else {
        ctx.addIssue({
          code: 'custom',
          path: ['capabilities', index, 'contract'],
          message: `duplicate contract "${capability.contract}" (also capabilities[${first}])`,
        });
      }
      capability.nativeTypes.forEach((nativeType, typeIndex) => {
        const owner = nativeTypes.get(nativeType);
        if (owner === undefined) nativeTypes.set(nativeType, index);
        else {
          ctx.addIssue({
            code: 'custom',
            path: ['capabilities', index, 'nativeTypes', typeIndex],
            message: `native type "${nativeType}" is already listed by capabilities[${owner}]`,
          });
        }
      });
    });
  });
export type ProviderProfileSpec = z.infer<typeof ProviderProfileSpec>;

export const ProviderProfileStatus = z.object({
  observedGeneration: z.number().int().min(0).optional(),
  conditions: Conditions.optional(),
});
export type ProviderProfileStatus = z.infer<typeof ProviderProfileStatus>;

/** A provider surface's normalization profile: the rows of the fidelity matrix for it. */
export const ProviderProfile = defineResource(
  'ProviderProfile',
  ProviderProfileSpec,
  ProviderProfileStatus,
);
export type ProviderProfile = z.infer<typeof ProviderProfile>;

export const ProviderProfileInput = defineResourceInput('ProviderProfile', ProviderProfileSpec);
export type ProviderProfileInput = z.infer<typeof ProviderProfileInput>;

/**
 * The fidelity `profile` declares for `contract`, or `opaque` when it declares nothing: a
 * capability the profile does not describe is one Toolgate cannot prove anything about.
 */
export function fidelityFor(profile: ProviderProfileSpec, contract: string): Fidelity {
  return profile.capabilities.find((c) => c.contract === contract)?.fidelity ?? 'opaque';
}

/** The contract a provider-native tool type (e.g. `web_search_20250305`) belongs to, if any. */
export function contractForNativeType(
  profile: ProviderProfileSpec,
  nativeType: string,
): string | undefined {
  return profile.capabilities.find((c) => c.nativeTypes.includes(nativeType))?.contract;
}
