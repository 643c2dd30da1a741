import { z } from 'zod';
import {
  Conditions,
  defineResource,
  defineResourceInput,
  ResourceName,
  Timestamp,
} from './envelope.ts';

/**
 * The condition a gateway reports about its policy bundle: `True` when it runs the latest bundle,
 * `False` with reason `BundleRejected` and the NACK error as message when it refused one (and
 * keeps running the last good bundle).
 */
export const SYNCED_CONDITION = 'Synced';

/**
 * Present once the gateway's receipt spool has been full: `True` (reason `SpoolAtCapacity`)
 * while it is — requests refused with 503 (`SPOOL_FULL=reject`) or receipts dropped
 * (`SPOOL_FULL=drop`) — and `False` (reason `SpoolHasRoom`) once shipping freed room.
 */
export const SPOOL_FULL_CONDITION = 'SpoolFull';

/**
 * A registered gateway. Its labels (in `metadata.labels`, not here) are what policy selectors
 * match, so relabelling a gateway changes which policies it receives.
 */
export const GatewaySpec = z
  .object({
    /** Name of the Identity (role `gateway`) the gateway authenticates as. */
    identity: ResourceName,
    description: z.string().max(1024).optional(),
  })
  .strict();
export type GatewaySpec = z.infer<typeof GatewaySpec>;

/**
 * A receipt in the gateway's quarantine: the API refused it for good, so its body stays in the
 * gateway's quarantine file and the API's chain holds a stand-in for it (docs/receipts.md).
 */
export const QuarantinedReceiptSummary = z.object({
  id: z.string().min(1).max(128),
  hash: z.string().min(1).max(128),
  /** The API's reason: `Invalid`, `HashMismatch`, `RequestEntityTooLarge`, `ChainBroken`, … */
  reason: z.string().min(1).max(64),
  /** The API's message, cut to 256 characters (the file on the gateway has all of it). */
  message: z.string().max(1024).optional(),
  /** Size of the spooled record, in bytes. */
  bytes: z.number().int().min(0),
  quarantinedAt: Timestamp,
});
export type QuarantinedReceiptSummary = z.infer<typeof QuarantinedReceiptSummary>;

/** What the gateway's receipt quarantine holds: the file on its disk, summarized. */
export const ReceiptQuarantineStatus = z.object({
  /** Receipts in the quarantine file (each once; it outlives restarts). */
  count: z.number().int('must be an integer').min(0, 'must be >= 0'),
  lastReason: z.string().min(1).max(64).optional(),
  lastTime: Timestamp.optional(),
  /** The newest entries, oldest first: at most 10. */
  recent: z.array(QuarantinedReceiptSummary).max(10),
});
export type ReceiptQuarantineStatus = z.infer<typeof ReceiptQuarantineStatus>;

/**
 * The newest receipt of this gateway's chain the API acknowledged (stored, or linked as a
 * quarantined receipt's stand-in), as the gateway saw it: verify reports a stored chain that no
 * longer reaches it as cut short. Unknown after a restart until the next receipt ships.
 */
export const ReceiptChainStatus = z.object({
  head: z.object({
    id: z.string().min(1).max(128),
    hash: z.string().regex(/^sha256:[0-9a-f]{64}$/, 'must be "sha256:" + 64 hex digits'),
  }),
  acknowledgedAt: Timestamp,
});
export type ReceiptChainStatus = z.infer<typeof ReceiptChainStatus>;

/** Written by the gateway itself on every sync, so it reflects what actually runs. */
export const GatewayStatus = z.object({
  observedGeneration: z.number().int().min(0).optional(),
  /** ETag of the bundle in use; with a NACK this is still the last good one. */
  appliedBundleETag: z.string().min(1).max(256).optional(),
  conditions: Conditions,
  lastSyncTime: Timestamp.optional(),
  /** Receipts written to the local spool but not yet acknowledged by the API. */
  spoolDepth: z.number().int('must be an integer').min(0, 'must be >= 0').optional(),
  /** Receipts dropped because the spool was full (`SPOOL_FULL=drop`) since the gateway started. */
  spoolDropped: z.number().int('must be an integer').min(0, 'must be >= 0').optional(),
  /** Receipts the API refused for good, kept in the gateway's quarantine file. */
  receiptQuarantine: ReceiptQuarantineStatus.optional(),
  /** The newest receipt the API acknowledged: what its stored chain must still reach. */
  receiptChain: ReceiptChainStatus.optional(),
  /** The gateway's software version. */
  version: z.string().min(1).max(128).optional(),
});
export type GatewayStatus = z.infer<typeof GatewayStatus>;

export const Gateway = defineResource('Gateway', GatewaySpec, GatewayStatus);
export type Gateway = z.infer<typeof Gateway>;

export const GatewayInput = defineResourceInput('Gateway', GatewaySpec);
export type GatewayInput = z.infer<typeof GatewayInput>;
