import { z } from 'zod';
import { Conditions, defineResource, defineResourceInput, Timestamp } from './envelope.ts';

/**
 * What a principal may do. `operator` edits policies (and alone may apply `mutate`/`execute`
 * policies), `auditor` reads history, `gateway` syncs bundles and posts receipts, `agent` is what
 * a gateway binds requests to.
 */
export const Role = z.enum(['operator', 'auditor', 'gateway', 'agent']);
export type Role = z.infer<typeof Role>;

export const IdentityType = z.enum(['human', 'service']);
export type IdentityType = z.infer<typeof IdentityType>;

/** The desired state of a principal. Tokens are issued separately and never live in the spec. */
export const IdentitySpec = z
  .object({
    type: IdentityType,
    roles: z
      .array(Role)
      .min(1, 'must name at least one role')
      .superRefine((roles, ctx) => {
        roles.forEach((role, index) => {
          const first = roles.indexOf(role);
          if (first !== index) {
            ctx.addIssue({
              code: 'custom',
              path: [index],
              message: `duplicate role "${role}" (also [${first}])`,
            });
          }
        });
      }),
    displayName: z.string().min(1, 'must not be empty').max(256).optional(),
    description: z.string().max(1024).optional(),
  })
  .strict()
  .superRefine((spec, ctx) => {
    // A gateway is a machine; a human holding gateway credentials would post receipts and pull
    // bundles under a personal name, which makes the audit trail lie about who did what.
    const index = spec.roles.indexOf('gateway');
    if (index !== -1 && spec.type !== 'service') {
      ctx.addIssue({
        code: 'custom',
        path: ['roles', index],
        message: 'the gateway role requires type "service"',
      });
    }
  });
export type IdentitySpec = z.infer<typeof IdentitySpec>;

/** A summary of the identity's API tokens; the tokens themselves are stored hashed elsewhere. */
export const IdentityTokenSummary = z.object({
  /** Issued, not revoked and not expired. */
  active: z.number().int().min(0),
  lastUsedTime: Timestamp.optional(),
});
export type IdentityTokenSummary = z.infer<typeof IdentityTokenSummary>;

export const IdentityStatus = z.object({
  observedGeneration: z.number().int().min(0).optional(),
  conditions: Conditions.optional(),
  tokens: IdentityTokenSummary.optional(),
});
export type IdentityStatus = z.infer<typeof IdentityStatus>;

/** A principal: a person or a service (gateways and agents included). */
export const Identity = defineResource('Identity', IdentitySpec, IdentityStatus);
export type Identity = z.infer<typeof Identity>;

export const IdentityInput = defineResourceInput('Identity', IdentitySpec);
export type IdentityInput = z.infer<typeof IdentityInput>;
