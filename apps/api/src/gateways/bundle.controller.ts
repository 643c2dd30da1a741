import { Controller, Inject, Param, Query, Req, Res } from '@nestjs/common';
import { NameParams, ROUTES } from '@toolgate/contract';
import { canonicalize } from '@toolgate/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { Route } from '../common/route.decorator.ts';
import { ShutdownSignal } from '../common/shutdown-signal.ts';
import { BundleService } from './bundle.service.ts';

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
    const abort = new AbortController();
    request.raw.on('close', () => abort.abort());
    const signal = this.shutdown.combine(abort.signal);
    const found = await this.bundles.next(params.name, known, query.wait ?? 0, signal);
    if (!found) {
      reply.status(304).header('etag', `"${known}"`);
      return;
    }
    // The canonical text the ETag hashes: the bundle's shared parts keep theirs (frozen), so a
    // fleet woken at once is served without serializing them again per gateway.
    reply
      .header('etag', `"${found.etag}"`)
      .header('cache-control', 'no-cache')
      .header('content-type', 'application/json; charset=utf-8');
    return canonicalize(found.bundle);
  }
}

/** `"sha256:…"`, `W/"sha256:…"` or bare: the ETag a gateway holds. */
function parseEtag(header: string | undefined): string | undefined {
  if (!header) return undefined;
  return header.trim().replace(/^W\//, '').replace(/^"|"$/g, '') || undefined;
}
