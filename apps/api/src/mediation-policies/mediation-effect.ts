import type { MediationEffect } from '@toolgate/contract';
import {
  type BundlePolicy,
  compileBundle,
  detectSurface,
  type MediationPolicySpec,
  mediateRequest,
  type ProviderProfileSpec,
  type RuleIdentity,
  type Surface,
  type ToolDeclarationInput,
  ValidationError,
} from '@toolgate/core';

export interface EffectInput {
  /** One policy (a draft, a revision) or the set a gateway runs (`policies`). */
  spec?: MediationPolicySpec;
  policies?: ReadonlyArray<BundlePolicy>;
  /** The gateway's provider profiles; the seeded ones when absent. */
  profiles?: ReadonlyArray<ProviderProfileSpec>;
  request: Record<string, unknown>;
  surface?: Surface;
  hostedTools?: ReadonlyArray<ToolDeclarationInput>;
  /** The caller rules match against (a replayed receipt's); none: an anonymous caller. */
  identity?: RuleIdentity;
}

/**
 * What a policy does to one provider request, run through the same engine as the gateway:
 * the tools the provider sees before and after, and the mediation block a receipt would carry.
 * Request errors name their field under `request.` (the preview body's own path).
 */
export function mediationEffect(input: EffectInput): MediationEffect {
  const surface = input.surface ?? detectSurface(input.request);
  const bundle = compileBundle({
    policies: input.policies ?? [
      { name: 'preview', generation: 0, spec: input.spec ?? { rules: [] } },
    ],
    ...(input.profiles ? { profiles: input.profiles } : {}),
  });
  let result: ReturnType<typeof mediateRequest>;
  try {
    result = mediateRequest(bundle, {
      surface,
      body: input.request,
      ...(input.hostedTools ? { hostedTools: input.hostedTools } : {}),
      ...(input.identity ? { identity: input.identity } : {}),
    });
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    throw new ValidationError(
      error.kind,
      error.causes.map((c) => ({ ...c, field: `request.${c.field}` })),
    );
  }
  const descriptors = result.tools.map((t) => ({
    declared_by: t.declared_by,
    name: t.name,
    type: t.type,
    schema_hash: t.schema_hash,
  }));
  return {
    surface,
    before: result.mediation?.original_tools ?? descriptors,
    after: result.mediation?.provider_visible_tools ?? descriptors,
    providerRequest: result.body,
    ...(result.mediation ? { mediation: result.mediation } : {}),
    tools: result.tools,
  };
}
