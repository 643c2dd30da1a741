import { Module } from '@nestjs/common';
import { createResourceController } from '../resources/resource-controller.factory.ts';

@Module({ controllers: [createResourceController('ProviderProfile')] })
export class ProviderProfilesModule {}
