import { Module } from '@nestjs/common';
import { createResourceController } from '../resources/resource-controller.factory.ts';
import { HostedToolHooks } from './hosted-tool.hooks.ts';

/** Tools the gateways execute by calling operators' endpoints: operators write them. */
@Module({
  controllers: [
    createResourceController('HostedTool', ['list', 'create', 'get', 'replace', 'delete']),
  ],
  providers: [HostedToolHooks],
})
export class HostedToolsModule {}
