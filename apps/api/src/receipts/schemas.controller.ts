import { Body, Controller, Inject, Param } from '@nestjs/common';
import { ROUTES } from '@toolgate/contract';
import type { z } from 'zod';
import { Route } from '../common/route.decorator.ts';
import { SchemaStoreService } from './schema-store.service.ts';

type HashParams = z.infer<NonNullable<(typeof ROUTES)['receipts.putSchema']['params']>>;

@Controller()
export class SchemasController {
  constructor(@Inject(SchemaStoreService) private readonly store: SchemaStoreService) {}

  @Route('receipts.putSchema')
  put(
    @Param({ schema: ROUTES['receipts.putSchema'].params }) params: HashParams,
    @Body({ schema: ROUTES['receipts.putSchema'].body }) body: Record<string, unknown>,
  ) {
    return this.store.put(params.hash, body);
  }

  @Route('receipts.getSchema')
  get(@Param({ schema: ROUTES['receipts.getSchema'].params }) params: HashParams) {
    return this.store.get(params.hash);
  }
}
