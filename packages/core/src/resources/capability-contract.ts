import { z } from 'zod';
import { Conditions, defineResource, defineResourceInput } from './envelope.ts';

/**
 * A capability contract id: `<namespace>.<capability>.v<major>`, e.g. `wardwright.web_search.v1`
 * (the seeded ones are `CAPABILITY_CONTRACT_IDS`). The major version is part of the id because a
 * changed request or evidence schema is a different contract, not a new revision of the old one.
 */
export const ContractId = z
  .string()
  .max(253, 'must be at most 253 characters')
  .regex(
    /^[a-z0-9_]+\.[a-z0-9_.]+\.v[0-9]+$/,
    'must look like <namespace>.<capability>.v<major>, e.g. wardwright.web_search.v1',
  );
export type ContractId = z.infer<typeof ContractId>;

/**
 * A JSON Schema for an object, kept as plain JSON: the schema is data to hash, diff and show,
 * and is validated against by whoever consumes the evidence, not interpreted here.
 */
export const JsonSchemaDocument = z
  .record(z.string(), z.json())
  .refine((schema) => schema.type === 'object', {
    message: 'must be a JSON Schema describing an object ("type": "object")',
    path: ['type'],
  });
export type JsonSchemaDocument = z.infer<typeof JsonSchemaDocument>;

/**
 * Worst effect one call can have, ordered: `none` (pure), `read` (reads outside state without
 * changing it), `write` (changes state the caller owns, e.g. files in a sandbox), `external`
 * (acts on systems nobody here controls). Approval policies key off this.
 */
export const SideEffects = z.enum(['none', 'read', 'write', 'external']);
export type SideEffects = z.infer<typeof SideEffects>;

export const CapabilityContractSpec = z
  .object({
    id: ContractId,
    title: z.string().min(1, 'must not be empty').max(128),
    description: z.string().max(4096),
    /** The provider-neutral request, what any provider's native call is normalized to. */
    requestSchema: JsonSchemaDocument,
    /**
     * What Toolgate records as proof of a call. Holds hashes rather than content where content
     * may be private, because evidence ends up in receipts.
     */
    evidenceSchema: JsonSchemaDocument,
    sideEffects: SideEffects,
  })
  .strict();
export type CapabilityContractSpec = z.infer<typeof CapabilityContractSpec>;

export const CapabilityContractStatus = z.object({
  observedGeneration: z.number().int().min(0).optional(),
  conditions: Conditions.optional(),
});
export type CapabilityContractStatus = z.infer<typeof CapabilityContractStatus>;

// A contract is looked up by the id that profiles and receipts cite, so the object's name must
// be that id; otherwise `wardwright.web_search.v1` could name two different objects.
const nameIsId = <T extends { metadata: { name: string }; spec: { id: string } }>(
  contract: T,
  ctx: z.core.$RefinementCtx<T>,
) => {
  // zod still runs this when other fields failed; only a well-formed id is worth comparing.
  const { name } = contract.metadata ?? {};
  const { id } = contract.spec ?? {};
  if (!ContractId.safeParse(id).success || typeof name !== 'string') return;
  if (name !== id) {
    ctx.addIssue({
      code: 'custom',
      path: ['spec', 'id'],
      message: `must equal metadata.name ("${name}")`,
    });
  }
};

/** A stable, provider-neutral contract for a provider-hosted capability such as web search. */
export const CapabilityContract = defineResource(
  'CapabilityContract',
  CapabilityContractSpec,
  CapabilityContractStatus,
).superRefine(nameIsId);
export type CapabilityContract = z.infer<typeof CapabilityContract>;

export const CapabilityContractInput = defineResourceInput(
  'CapabilityContract',
  CapabilityContractSpec,
).superRefine(nameIsId);
export type CapabilityContractInput = z.infer<typeof CapabilityContractInput>;
