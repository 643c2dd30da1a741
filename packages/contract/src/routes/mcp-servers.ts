import { McpAcceptInput, McpObservationInput, McpServer, McpToolPin } from '@toolgate/core';
import { z } from 'zod';
import { route } from '../route.ts';
import { API_PREFIX, NameParams, RESOURCE_KINDS, resourceRoutes } from './resources.ts';

const SERVER = `${API_PREFIX}/mcpservers/{name}`;

/** The answer to an observation: the server's tools as the API now pins them. */
export const McpObservationResult = z.object({ tools: z.array(McpToolPin) });
export type McpObservationResult = z.infer<typeof McpObservationResult>;

export const McpDefinitionParams = z.object({
  name: NameParams.shape.name,
  hash: z.string().regex(/^sha256:[0-9a-f]{64}$/, 'must be "sha256:" + 64 hex digits'),
});

const standard = resourceRoutes('McpServer', RESOURCE_KINDS.McpServer);

/**
 * McpServer: a kind like the others (operators apply it; list, watch, get, delete), except its
 * status, which only the API writes: from gateways' observations of the tools the server lists,
 * and operators' accepts of drifted definitions.
 */
export const mcpServerRouteTable = {
  list: standard.list,
  create: standard.create,
  get: standard.get,
  replace: standard.replace,
  delete: standard.delete,
  observe: route({
    method: 'POST',
    path: `${SERVER}/observations`,
    tag: 'McpServer',
    summary:
      "Report the server's complete tool list as a gateway saw it (gateways). New tools are pinned on first sight; a changed definition opens a drift",
    access: { roles: ['gateway'] },
    params: NameParams,
    body: McpObservationInput,
    response: McpObservationResult,
  }),
  accept: route({
    method: 'POST',
    path: `${SERVER}/accept`,
    tag: 'McpServer',
    summary:
      "Pin a tool's latest definition, accepting its open drifts (operators). 409 when `hash` is not the latest",
    access: { roles: ['operator'] },
    params: NameParams,
    body: McpAcceptInput,
    response: McpServer,
  }),
  definition: route({
    method: 'GET',
    path: `${SERVER}/definitions/{hash}`,
    tag: 'McpServer',
    summary:
      'A tool definition of this server by content hash (pinned, latest or in a drift event), for diffs',
    access: { roles: ['operator', 'auditor'] },
    params: McpDefinitionParams,
    response: z.record(z.string(), z.unknown()),
  }),
};
