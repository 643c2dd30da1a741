import { Module } from '@nestjs/common';
import { createResourceController } from '../resources/resource-controller.factory.ts';

@Module({ controllers: [createResourceController('CapabilityContract')] })
export class CapabilityContractsModule {}
