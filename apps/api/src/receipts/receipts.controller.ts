import { Body, Controller, Inject, Param, Query } from '@nestjs/common';
import {
  ChainVerifyQuery,
  NameParams,
  type ReceiptFilterQuery,
  type ReceiptQuery,
  ROUTES,
} from '@toolgate/contract';
import type { z } from 'zod';
import { Route } from '../common/route.decorator.ts';
import { ChainVerifyService } from './chain-verify.service.ts';
import { ReceiptIngestService } from './receipt-ingest.service.ts';
import { ReceiptQueryService } from './receipt-query.service.ts';
import { ReceiptToolLinksService } from './receipt-tool-links.service.ts';
import { ReceiptValuesRepository } from './receipt-values.repository.ts';

type ValuesParams = z.infer<NonNullable<(typeof ROUTES)['receipts.values']['params']>>;
type ValuesQuery = z.infer<NonNullable<(typeof ROUTES)['receipts.values']['query']>>;
type IdParams = z.infer<NonNullable<(typeof ROUTES)['receipts.get']['params']>>;

@Controller()
export class ReceiptsController {
  constructor(
    @Inject(ReceiptIngestService) private readonly ingestion: ReceiptIngestService,
    @Inject(ReceiptQueryService) private readonly queries: ReceiptQueryService,
    @Inject(ChainVerifyService) private readonly chains: ChainVerifyService,
    @Inject(ReceiptToolLinksService) private readonly toolLinks: ReceiptToolLinksService,
    @Inject(ReceiptValuesRepository) private readonly values: ReceiptValuesRepository,
  ) {}

  @Route('receipts.ingest')
  async ingest(
    @Param({ schema: NameParams }) params: z.infer<typeof NameParams>,
    @Body({ schema: ROUTES['receipts.ingest'].body })
    body: { receipts: unknown[]; tool_sets?: Record<string, unknown> },
  ) {
    return { results: await this.ingestion.ingest(params.name, body.receipts, body.tool_sets) };
  }

  @Route('receipts.list')
  list(@Query({ schema: ROUTES['receipts.list'].query }) query: ReceiptQuery) {
    return this.queries.list(query);
  }

  @Route('receipts.count')
  count(@Query({ schema: ROUTES['receipts.count'].query }) query: ReceiptFilterQuery) {
    return this.queries.count(query);
  }

  @Route('receipts.values')
  suggest(
    @Param({ schema: ROUTES['receipts.values'].params }) params: ValuesParams,
    @Query({ schema: ROUTES['receipts.values'].query }) query: ValuesQuery,
  ) {
    return this.values.values(params.field, query.contains);
  }

  @Route('receipts.get')
  get(@Param({ schema: ROUTES['receipts.get'].params }) params: IdParams) {
    return this.queries.get(params.id);
  }

  @Route('receipts.toolLinks')
  links(@Param({ schema: ROUTES['receipts.toolLinks'].params }) params: IdParams) {
    return this.toolLinks.linksOf(params.id);
  }

  @Route('receipts.verify')
  verify(
    @Param({ schema: NameParams }) params: z.infer<typeof NameParams>,
    @Query({ schema: ChainVerifyQuery }) query: ChainVerifyQuery,
  ) {
    const { anchorSeq, anchorHash } = query;
    const anchor =
      anchorSeq !== undefined && anchorHash !== undefined
        ? { seq: BigInt(anchorSeq), hash: anchorHash }
        : undefined;
    return this.chains.verify(params.name, anchor);
  }
}
