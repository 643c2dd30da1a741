import { Controller, Inject, Param, Query, Req, Res } from '@nestjs/common';
import { NameParams, ROUTES } from '@toolgate/contract';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { Route } from '../common/route.decorator.ts';
import { ShutdownSignal } from '../common/shutdown-signal.ts';
import { BundleService, type VersionedBundle } from './bundle.service.ts';

@Controller()
export class BundleController {
  constructor(
    @Inject(BundleService) private readonly bundles: BundleService,
    @Inject(ShutdownSignal) private readonly shutdown: ShutdownSignal,
  ) {}

  /** `If-None-Match` + `wait`: long-polls; 304 when the gateway already has the latest. */
  @Route('sync.bundle')
  async bundle(
    @Param({ schema: NameParams }) params: z.infer<typeof NameParams>,
    @Query({ schema: ROUTES['sync.bundle'].query }) query: { wait?: number },
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const known = parseEtag(request.headers['if-none-match']);
    const wait = query.wait ?? 0;
    let found: VersionedBundle | undefined;
    if (wait === 0) {
      found = await this.bundles.next(params.name, known, 0, this.shutdown.signal);
    } else {
      // A poll whose client goes away stops waiting. The listener goes as soon as the wait
      // ends: left on, every answered poll would abort (a DOMException and an event dispatch
      // through the combined signal each) when its request closes — per woken gateway.
      const abort = new AbortController();
      const onClose = () => abort.abort();
      request.raw.once('close', onClose);
      try {
        found = await this.bundles.next(
          params.name,
          known,
          wait,
          this.shutdown.combine(abort.signal),
        );
      } finally {
        request.raw.off('close', onClose);
      }
    }
    if (!found) {
      reply.status(304).header('etag', `"${known}"`);
      return;
    }
    // The canonical text the ETag hashes, encoded once per change and gateway: a fleet woken at
    // once is served the bytes already made, not serialized again per response.
    reply
      .header('etag', `"${found.etag}"`)
      .header('cache-control', 'no-cache')
      .header('vary', 'accept-encoding')
      .header('content-type', 'application/json; charset=utf-8');
    // Gzipped when the poll accepts it: a woken fleet's answers are ~45 kB of JSON each, and
    // their socket writes were the largest part of the API's time per wake (sync-protocol.md).
    if (acceptsGzip(request.headers['accept-encoding'])) {
      reply.header('content-encoding', 'gzip');
      return found.gzipBody();
    }
    return found.body();
  }
}

/** Whether `Accept-Encoding` lists gzip (or `*`) without `q=0` (RFC 9110 § 12.5.3). */
export function acceptsGzip(header: string | string[] | undefined): boolean {
  const value = Array.isArray(header) ? header.join(',') : header;
  if (!value) return false;
  for (const item of value.split(',')) {
    const [coding, ...params] = item.trim().toLowerCase().split(';');
    if (coding?.trim() !== 'gzip' && coding?.trim() !== '*') continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    if (q === undefined || Number(q.slice(2)) > 0) return true;
  }
  return false;
}

/** `"sha256:…"`, `W/"sha256:…"` or bare: the ETag a gateway holds. */
function parseEtag(header: string | undefined): string | undefined {
  if (!header) return undefined;
  return header.trim().replace(/^W\//, '').replace(/^"|"$/g, '') || undefined;
}
