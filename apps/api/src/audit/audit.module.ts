import { Module } from '@nestjs/common';
import { AuditController } from './audit.controller.ts';

/** Read access to the append-only audit log (writes happen inside each mutation). */
@Module({ controllers: [AuditController] })
export class AuditModule {}
