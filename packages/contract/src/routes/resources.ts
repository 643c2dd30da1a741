import {
  API_VERSION,
  CapabilityContract,
  CapabilityContractInput,
  CapabilityContractStatus,
  Gateway,
  GatewayInput,
  GatewayStatus,
  HostedTool,
  HostedToolInput,
  HostedToolStatus,
  Identity,
  IdentityInput,
  IdentityStatus,
  isWellFormedString,
  McpServer,
  McpServerInput,
  McpServerStatus,
  MediationPolicy,
  MediationPolicyInput,
  MediationPolicyStatus,
  ProviderProfile,
  ProviderProfileInput,
  ProviderProfileStatus,
  ResourceName,
  type Role,
  ToolCallApproval,
  ToolCallApprovalInput,
  ToolCallApprovalStatus,
} from '@toolgate/core';
import { z } from 'zod';
import { decimalInteger } from '../decimal-integer.ts';
import { type Access, route } from '../route.ts';

export const API_PREFIX = `/apis/${API_VERSION}`;

/** The stored kinds: their URL plural, schemas, and who may read and write them. */
export const RESOURCE_KINDS = {
  MediationPolicy: {
    plural: 'mediationpolicies',
    stored: MediationPolicy,
    input: MediationPolicyInput,
    status: MediationPolicyStatus,
    readers: ['operator', 'auditor'],
  },
  Identity: {
    plural: 'identities',
    stored: Identity,
    input: IdentityInput,
    status: IdentityStatus,
    readers: ['operator', 'auditor'],
  },
  CapabilityContract: {
    plural: 'capabilitycontracts',
    stored: CapabilityContract,
    input: CapabilityContractInput,
    status: CapabilityContractStatus,
    readers: ['operator', 'auditor'],
  },
  ProviderProfile: {
    plural: 'providerprofiles',
    stored: ProviderProfile,
    input: ProviderProfileInput,
    status: ProviderProfileStatus,
    readers: ['operator', 'auditor'],
  },
  Gateway: {
    plural: 'gateways',
    stored: Gateway,
    input: GatewayInput,
    status: GatewayStatus,
    readers: ['operator', 'auditor', 'gateway'],
  },
  /**
   * Written by the API alone (`…/request` from gateways, `…/approval` from operators): only its
   * read routes and delete are mounted (routes/tool-call-approvals.ts), and `toolgate apply`
   * refuses it.
   */
  ToolCallApproval: {
    plural: 'toolcallapprovals',
    stored: ToolCallApproval,
    input: ToolCallApprovalInput,
    status: ToolCallApprovalStatus,
    readers: ['operator', 'auditor', 'gateway'],
  },
  /**
   * Operators write its spec; its status (pins, drift events) is the API's alone, from gateways'
   * observations and operators' accepts (routes/mcp-servers.ts): no status route is mounted.
   */
  McpServer: {
    plural: 'mcpservers',
    stored: McpServer,
    input: McpServerInput,
    status: McpServerStatus,
    readers: ['operator', 'auditor'],
  },
  /**
   * A tool the gateway executes by calling an operator's endpoint: written by operators only
   * (it makes every gateway call that URL); its status is the API's (routes/hosted-tools.ts).
   */
  HostedTool: {
    plural: 'hostedtools',
    stored: HostedTool,
    input: HostedToolInput,
    status: HostedToolStatus,
    readers: ['operator', 'auditor'],
  },
} as const satisfies Record<
  string,
  {
    plural: string;
    readers: ReadonlyArray<Role>;
    stored: z.ZodType;
    input: z.ZodType;
    status: z.ZodType;
  }
>;
export type ResourceKind = keyof typeof RESOURCE_KINDS;

export const NameParams = z.object({ name: ResourceName });

const BooleanFlag = z.enum(['true', 'false', '1', '0']);

export const ListQuery = z
  .object({
    /** Kubernetes selector syntax: `env=prod,tier in (a,b),!legacy`. */
    labelSelector: z.string().max(4096).optional(),
    limit: decimalInteger(1, 1000).optional(),
    /** Opaque keyset token from a previous page's `metadata.continue`. */
    continue: z.string().max(2048).optional(),
    watch: BooleanFlag.optional(),
    /** With `watch`: stream changes after this resourceVersion (410 when too old). */
    resourceVersion: z
      .string()
      .regex(/^\d{1,19}$/, 'must be a resourceVersion')
      .optional(),
    timeoutSeconds: decimalInteger(1, 3600).optional(),
  })
  .strict();
export type ListQuery = z.infer<typeof ListQuery>;

export const WriteQuery = z
  .object({ dryRun: z.literal('All', { message: 'must be "All"' }).optional() })
  .strict();

/**
 * Why a policy changed, in the operator's words: stored with the revision it makes and shown in
 * its history. One line of plain text (no control characters), at most 500 characters.
 */
export const ChangeNote = z
  .string()
  .max(500, 'must be at most 500 characters')
  .refine(isWellFormedString, 'must be well-formed text (no lone surrogates)')
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
  .refine((note) => !/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(note), {
    message: 'must be one line of text without control characters',
  });

/** Writes of a MediationPolicy also take the change note of the revision they make. */
export const PolicyWriteQuery = WriteQuery.extend({ changeNote: ChangeNote.optional() }).strict();

export const ListMeta = z.object({
  resourceVersion: z.string(),
  continue: z.string().optional(),
});

/** A watch event, one JSON object per line of the response. */
export const WatchEvent = z.object({
  type: z.enum(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK']),
  object: z.unknown(),
});
export type WatchEvent = z.infer<typeof WatchEvent>;

/**
 * The routes of one kind. `def` is passed (not looked up by `kind`) so each kind's routes are
 * typed with its own schemas rather than the union of every kind's.
 */
export function resourceRoutes<
  K extends ResourceKind,
  Stored extends z.ZodType,
  Input extends z.ZodType,
  Status extends z.ZodType,
>(
  kind: K,
  def: {
    plural: string;
    readers: ReadonlyArray<Role>;
    stored: Stored;
    input: Input;
    status: Status;
  },
) {
  const collection = `${API_PREFIX}/${def.plural}`;
  const item = `${collection}/{name}`;
  const readers: Access = {
    roles: def.readers,
    ...(kind === 'Gateway' ? { ownGateway: true } : {}),
  };
  const writers: Access = { roles: ['operator'] };
  const writeQuery = (
    kind === 'MediationPolicy' ? PolicyWriteQuery : WriteQuery
  ) as K extends 'MediationPolicy' ? typeof PolicyWriteQuery : typeof WriteQuery;
  const List = z.object({
    apiVersion: z.literal(API_VERSION),
    kind: z.literal(`${kind}List`),
    metadata: ListMeta,
    items: z.array(def.stored),
  });
  return {
    list: route({
      method: 'GET',
      path: collection,
      tag: kind,
      summary: `List ${kind} objects (labelSelector, keyset paging, watch)`,
      access: readers,
      query: ListQuery,
      response: List,
    }),
    create: route({
      method: 'POST',
      path: collection,
      tag: kind,
      summary: `Create a ${kind}`,
      access: writers,
      query: writeQuery,
      body: def.input,
      response: def.stored,
      successCode: 201,
    }),
    get: route({
      method: 'GET',
      path: item,
      tag: kind,
      summary: `Read a ${kind}`,
      access: readers,
      params: NameParams,
      response: def.stored,
    }),
    replace: route({
      method: 'PUT',
      path: item,
      tag: kind,
      summary: `Replace a ${kind} (metadata.resourceVersion for optimistic concurrency)`,
      access: writers,
      params: NameParams,
      query: writeQuery,
      body: def.input,
      response: def.stored,
    }),
    delete: route({
      method: 'DELETE',
      path: item,
      tag: kind,
      summary: `Delete a ${kind}`,
      access: writers,
      params: NameParams,
      query: WriteQuery,
      response: def.stored,
    }),
    replaceStatus: route({
      method: 'PUT',
      path: `${item}/status`,
      tag: kind,
      summary: `Replace the status of a ${kind}`,
      access: kind === 'Gateway' ? { roles: ['operator', 'gateway'], ownGateway: true } : writers,
      params: NameParams,
      query: WriteQuery,
      body: z.object({
        metadata: z.object({ resourceVersion: z.string().optional() }).optional(),
        status: def.status,
      }),
      response: def.stored,
    }),
  };
}

export const resourceRouteTable = {
  mediationPolicies: resourceRoutes('MediationPolicy', RESOURCE_KINDS.MediationPolicy),
  identities: resourceRoutes('Identity', RESOURCE_KINDS.Identity),
  capabilityContracts: resourceRoutes('CapabilityContract', RESOURCE_KINDS.CapabilityContract),
  providerProfiles: resourceRoutes('ProviderProfile', RESOURCE_KINDS.ProviderProfile),
  gateways: resourceRoutes('Gateway', RESOURCE_KINDS.Gateway),
};
