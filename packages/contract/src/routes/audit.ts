import { z } from 'zod';
import { decimalInteger } from '../decimal-integer.ts';
import { READERS, route } from '../route.ts';
import { API_PREFIX } from './resources.ts';

/** One control-plane mutation: who did what to which object, with before/after spec hashes. */
export const AuditEntry = z.object({
  id: z.string(),
  at: z.string(),
  actor: z.string(),
  verb: z.string(),
  kind: z.string(),
  name: z.string(),
  beforeHash: z.string().nullable(),
  afterHash: z.string().nullable(),
  details: z.record(z.string(), z.unknown()),
});
export type AuditEntry = z.infer<typeof AuditEntry>;

export type AuditQuery = z.infer<NonNullable<(typeof auditRouteTable)['list']['query']>>;

export const auditRouteTable = {
  list: route({
    method: 'GET',
    path: `${API_PREFIX}/auditlog`,
    tag: 'Audit',
    summary: 'The append-only audit log, newest first',
    access: READERS,
    query: z
      .object({
        kind: z.string().max(64).optional(),
        name: z.string().max(253).optional(),
        actor: z.string().max(253).optional(),
        /** Entries at or after this time. */
        since: z.iso.datetime({ offset: true }).optional(),
        /** Entries before this time. */
        until: z.iso.datetime({ offset: true }).optional(),
        limit: decimalInteger(1, 500).optional(),
        continue: z.string().max(64).optional(),
      })
      .strict()
      .refine(
        (query) =>
          query.since === undefined ||
          query.until === undefined ||
          Date.parse(query.since) < Date.parse(query.until),
        // A range that ends before it starts is a mistake, not an empty answer.
        { message: 'until must be after since', path: ['until'] },
      ),
    response: z.object({
      items: z.array(AuditEntry),
      metadata: z.object({ continue: z.string().optional() }),
    }),
  }),
};
