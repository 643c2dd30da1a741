import { Module } from '@nestjs/common';
import { ReceiptsRepository } from './receipts.repository.ts';
import { SchemasRepository } from './schemas.repository.ts';

@Module({
  providers: [ReceiptsRepository, SchemasRepository],
  exports: [ReceiptsRepository, SchemasRepository],
})
export class ReceiptsModule {}
