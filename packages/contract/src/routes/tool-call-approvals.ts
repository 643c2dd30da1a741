import { ApprovalDecisionInput, ToolCallApproval, ToolCallApprovalSpec } from '@toolgate/core';
import { z } from 'zod';
import { route } from '../route.ts';
import { API_PREFIX, NameParams, RESOURCE_KINDS, resourceRoutes } from './resources.ts';

const APPROVAL = `${API_PREFIX}/toolcallapprovals/{name}`;

/**
 * The body of `POST …/toolcallapprovals/{name}/request`: the withheld call as the gateway saw
 * it. Only the spec: the name is the URL's (and must equal `spec.actionId`), the status is the
 * API's to write.
 */
export const ToolCallApprovalRequest = z.object({ spec: ToolCallApprovalSpec }).strict();
export type ToolCallApprovalRequest = z.infer<typeof ToolCallApprovalRequest>;

const standard = resourceRoutes('ToolCallApproval', RESOURCE_KINDS.ToolCallApproval);

/**
 * ToolCallApproval: readable like every kind (list, watch, get) and deletable by operators (to
 * revoke a standing approval or clear old ones), but never created or replaced as a document:
 * gateways request, operators decide, the API writes the status.
 */
export const toolCallApprovalRouteTable = {
  list: standard.list,
  get: standard.get,
  delete: standard.delete,
  request: route({
    method: 'POST',
    path: `${APPROVAL}/request`,
    tag: 'ToolCallApproval',
    summary:
      'Ask for a decision on a withheld call (gateways; the caller must be spec.gateway). 201 when created, 200 when re-opened after expiry or already open (no write)',
    access: { roles: ['gateway'] },
    params: NameParams,
    body: ToolCallApprovalRequest,
    response: ToolCallApproval,
    successCode: 201,
  }),
  decide: route({
    method: 'PUT',
    path: `${APPROVAL}/approval`,
    tag: 'ToolCallApproval',
    summary: 'Approve or deny a pending approval (operators). 409 when already decided or expired',
    access: { roles: ['operator'] },
    params: NameParams,
    body: ApprovalDecisionInput,
    response: ToolCallApproval,
  }),
};
