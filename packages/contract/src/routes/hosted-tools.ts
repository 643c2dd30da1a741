import { RESOURCE_KINDS, resourceRoutes } from './resources.ts';

const standard = resourceRoutes('HostedTool', RESOURCE_KINDS.HostedTool);

/**
 * HostedTool: a kind like the others (operators apply it, with dry runs; list, watch, get,
 * delete; auditors read it). No status route: nothing but the API writes its status, and
 * gateways learn of it from their bundle (`hostedTools`), not from these routes.
 */
export const hostedToolRouteTable = {
  list: standard.list,
  create: standard.create,
  get: standard.get,
  replace: standard.replace,
  delete: standard.delete,
};
