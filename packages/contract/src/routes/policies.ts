import {
  MediationPolicy,
  ResourceName,
  Surface,
  ToolDescriptor,
  ToolMediationBlock,
  ToolRecord,
} from '@toolgate/core';
import { z } from 'zod';
import { decimalInteger } from '../decimal-integer.ts';
import { OPERATOR_ONLY, READERS, route } from '../route.ts';
import { API_PREFIX, ChangeNote, NameParams } from './resources.ts';

const POLICY = `${API_PREFIX}/mediationpolicies/{name}`;
/** Stored as a PostgreSQL `integer`: a larger number is a 400 here, not a database error. */
const Generation = decimalInteger(1, 2_147_483_647);

/** One immutable generation of a policy. */
export const PolicyRevision = z.object({
  name: z.string(),
  generation: z.number().int(),
  hash: z.string(),
  author: z.string(),
  createdAt: z.string(),
  spec: z.unknown(),
  /** The operator's note on why (from `?changeNote=` or the rollback's `changeNote`). */
  changeNote: z.string().optional(),
  /** Set when this generation was made by a rollback: the generation whose spec it restored. */
  rollbackOf: z.number().int().optional(),
});
export type PolicyRevision = z.infer<typeof PolicyRevision>;

/** One change between two specs, JSON-Patch style (RFC 6902 paths). */
export const SpecChange = z.object({
  op: z.enum(['add', 'remove', 'replace']),
  path: z.string(),
  from: z.unknown().optional(),
  value: z.unknown().optional(),
});
export type SpecChange = z.infer<typeof SpecChange>;

/** What a policy does to one provider request: the tools the provider sees before and after. */
export const MediationEffect = z.object({
  surface: Surface,
  before: z.array(ToolDescriptor),
  after: z.array(ToolDescriptor),
  providerRequest: z.unknown(),
  mediation: ToolMediationBlock.optional(),
  tools: z.array(ToolRecord),
  /** With `gateway`: the gateway previewed against. */
  gateway: z.string().optional(),
  /** With `gateway`: the policies that ran, in merged order (the draft among them if selected). */
  policies: z
    .array(z.object({ name: z.string(), generation: z.number().int(), draft: z.boolean() }))
    .optional(),
  /** With `gateway`: whether the draft's selector selects that gateway (else it did not run). */
  draftSelected: z.boolean().optional(),
});
export type MediationEffect = z.infer<typeof MediationEffect>;

/** A sample provider request, or a stored receipt whose original tools are replayed. */
export const PreviewInput = z
  .object({
    surface: Surface.optional(),
    request: z.record(z.string(), z.unknown()).optional(),
    receiptId: z.string().min(1).max(128).optional(),
  })
  .strict()
  .refine((v) => (v.request === undefined) !== (v.receiptId === undefined), {
    message: 'give exactly one of request or receiptId',
    path: ['request'],
  });
export type PreviewInput = z.infer<typeof PreviewInput>;

export const policyRouteTable = {
  revisions: route({
    method: 'GET',
    path: `${POLICY}/revisions`,
    tag: 'MediationPolicy',
    summary: 'History: every generation of a policy, newest first',
    access: READERS,
    params: NameParams,
    response: z.object({ items: z.array(PolicyRevision) }),
  }),
  revision: route({
    method: 'GET',
    path: `${POLICY}/revisions/{generation}`,
    tag: 'MediationPolicy',
    summary: 'One generation of a policy',
    access: READERS,
    params: NameParams.extend({ generation: Generation }),
    response: PolicyRevision,
  }),
  diff: route({
    method: 'POST',
    path: `${POLICY}/diff`,
    tag: 'MediationPolicy',
    summary: 'Diff two generations: spec changes, and the effect on a given request',
    access: READERS,
    params: NameParams,
    body: z.object({ from: Generation, to: Generation, preview: PreviewInput.optional() }).strict(),
    response: z.object({
      from: PolicyRevision,
      to: PolicyRevision,
      changes: z.array(SpecChange),
      effect: z.object({ from: MediationEffect, to: MediationEffect }).optional(),
    }),
  }),
  rollback: route({
    method: 'POST',
    path: `${POLICY}/rollback`,
    tag: 'MediationPolicy',
    summary: 'Roll back: a new generation with the spec of an old one',
    access: OPERATOR_ONLY,
    params: NameParams,
    body: z
      .object({
        toGeneration: Generation,
        resourceVersion: z.string().optional(),
        changeNote: ChangeNote.optional(),
      })
      .strict(),
    response: MediationPolicy,
  }),
  preview: route({
    method: 'POST',
    path: `${API_PREFIX}/mediationpolicypreviews`,
    tag: 'MediationPolicy',
    summary:
      'Run a draft policy (not stored) against a sample request or a recorded receipt, alone or with the policies a gateway runs',
    access: READERS,
    body: PreviewInput.and(
      z.object({
        spec: z.unknown(),
        /** Run the draft together with every policy this gateway runs (its bundle's set). */
        gateway: ResourceName.optional(),
        /** The draft's own name: its stored version is left out of the gateway's set. */
        policyName: ResourceName.optional(),
      }),
    ),
    response: MediationEffect,
  }),
};
