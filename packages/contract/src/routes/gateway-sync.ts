import { z } from 'zod';
import { decimalInteger } from '../decimal-integer.ts';
import { READERS, route } from '../route.ts';
import { OverviewGateway } from './overview.ts';
import { API_PREFIX, NameParams } from './resources.ts';

/**
 * A stretch of a gateway's reported status in which nothing that matters changed: consecutive
 * reports with the same sync state, bundle, NACK reason/message and spool state are one entry
 * (a gateway reports every 30 s; the history shows what changed, not every report).
 */
export const GatewayStatusChange = z.object({
  /** The first report of this stretch. */
  since: z.string(),
  /** The last report of this stretch. */
  until: z.string(),
  reports: z.number().int().min(1),
  /** `synced`, `nack` (the gateway refused a bundle) or `unknown` (no Synced condition yet). */
  sync: z.enum(['synced', 'nack', 'unknown']),
  appliedBundleETag: z.string().nullable(),
  reason: z.string().nullable(),
  message: z.string().nullable(),
  spoolFull: z.boolean(),
});
export type GatewayStatusChange = z.infer<typeof GatewayStatusChange>;

export const GatewaySyncHistory = z.object({
  sync: OverviewGateway,
  /** Newest first. */
  items: z.array(GatewayStatusChange),
  /**
   * False when older reports are no longer kept: the history is read from the API's watch
   * event log, which keeps the newest WATCH_HISTORY events of all kinds.
   */
  complete: z.boolean(),
});
export type GatewaySyncHistory = z.infer<typeof GatewaySyncHistory>;

export const gatewaySyncRouteTable = {
  list: route({
    method: 'GET',
    path: `${API_PREFIX}/gateway-sync`,
    tag: 'Gateway',
    summary:
      'Every gateway against the bundle the API would serve it now: in sync, behind, NACK or stale',
    access: READERS,
    response: z.object({ items: z.array(OverviewGateway) }),
  }),
  history: route({
    method: 'GET',
    path: `${API_PREFIX}/gateways/{name}/sync-history`,
    tag: 'Gateway',
    summary: "A gateway's sync state now and its reported status changes, newest first",
    access: READERS,
    params: NameParams,
    query: z.object({ limit: decimalInteger(1, 200).optional() }).strict(),
    response: GatewaySyncHistory,
  }),
};
