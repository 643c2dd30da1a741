import { Module } from '@nestjs/common';
import { ChainLinksRepository } from './chain-links.repository.ts';
import { ChainVerifyService } from './chain-verify.service.ts';
import { ReceiptIngestService } from './receipt-ingest.service.ts';
import { ReceiptListRepository } from './receipt-list.repository.ts';
import { ReceiptPartitionsService } from './receipt-partitions.service.ts';
import { ReceiptQueryService } from './receipt-query.service.ts';
import { ReceiptToolLinksRepository } from './receipt-tool-links.repository.ts';
import { ReceiptToolLinksService } from './receipt-tool-links.service.ts';
import { ReceiptValuesRepository } from './receipt-values.repository.ts';
import { ReceiptsController } from './receipts.controller.ts';
import { ReceiptsRepository } from './receipts.repository.ts';
import { SchemaStoreService } from './schema-store.service.ts';
import { SchemasController } from './schemas.controller.ts';
import { SchemasRepository } from './schemas.repository.ts';

/**
 * Receipt ingest, history and chain verification; the content-addressed schema store; the
 * monthly partitions of the receipts table.
 */
@Module({
  controllers: [ReceiptsController, SchemasController],
  providers: [
    ReceiptsRepository,
    ReceiptListRepository,
    ReceiptValuesRepository,
    ChainLinksRepository,
    ReceiptToolLinksRepository,
    SchemasRepository,
    ReceiptIngestService,
    ReceiptQueryService,
    ReceiptToolLinksService,
    ChainVerifyService,
    SchemaStoreService,
    ReceiptPartitionsService,
  ],
  exports: [ReceiptsRepository, SchemasRepository],
})
export class ReceiptsModule {}
