import { Module } from '@nestjs/common';
import { ReceiptsModule } from '../receipts/receipts.module.ts';
import { createResourceController } from '../resources/resource-controller.factory.ts';
import { McpAcceptService } from './mcp-accept.service.ts';
import { McpDefinitionsService } from './mcp-definitions.service.ts';
import { McpObservationService } from './mcp-observation.service.ts';
import { McpServerHooks } from './mcp-server.hooks.ts';
import { McpServersController } from './mcp-servers.controller.ts';

/** MCP servers behind the gateways: operators write them, gateways report what they list. */
@Module({
  imports: [ReceiptsModule],
  controllers: [
    createResourceController('McpServer', ['list', 'create', 'get', 'replace', 'delete']),
    McpServersController,
  ],
  providers: [McpServerHooks, McpObservationService, McpAcceptService, McpDefinitionsService],
})
export class McpServersModule {}
