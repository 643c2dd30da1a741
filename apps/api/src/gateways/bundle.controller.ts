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
      .header('content-type', 'application/json; charset=utf-8');
    return found.body();
  }
}

/** `"sha256:…"`, `W/"sha256:…"` or bare: the ETag a gateway holds. */
function parseEtag(header: string | undefined): string | undefined {
  if (!header) return undefined;
  return header.trim().replace(/^W\//, '').replace(/^"|"$/g, '') || undefined;
}
