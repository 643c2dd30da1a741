import { Body, Controller, Inject, Param } from '@nestjs/common';
import { McpDefinitionParams, NameParams } from '@toolgate/contract';
import { McpAcceptInput, McpObservationInput } from '@toolgate/core';
import type { z } from 'zod';
import { CurrentActor } from '../auth/current-actor.decorator.ts';
import { Route } from '../common/route.decorator.ts';
import type { Actor } from '../resources/kind-hooks.ts';
import { McpAcceptService } from './mcp-accept.service.ts';
import { McpDefinitionsService } from './mcp-definitions.service.ts';
import { McpObservationService } from './mcp-observation.service.ts';

@Controller()
export class McpServersController {
  constructor(
    @Inject(McpObservationService) private readonly observations: McpObservationService,
    @Inject(McpAcceptService) private readonly accepts: McpAcceptService,
    @Inject(McpDefinitionsService) private readonly definitions: McpDefinitionsService,
  ) {}

  @Route('mcpServers.observe')
  observe(
    @Param({ schema: NameParams }) params: z.infer<typeof NameParams>,
    @Body({ schema: McpObservationInput }) body: McpObservationInput,
    @CurrentActor() actor: Actor,
  ) {
    return this.observations.observe(params.name, body, actor);
  }

  @Route('mcpServers.accept')
  accept(
    @Param({ schema: NameParams }) params: z.infer<typeof NameParams>,
    @Body({ schema: McpAcceptInput }) body: McpAcceptInput,
    @CurrentActor() actor: Actor,
  ) {
    return this.accepts.accept(params.name, body, actor);
  }

  @Route('mcpServers.definition')
  definition(@Param({ schema: McpDefinitionParams }) params: z.infer<typeof McpDefinitionParams>) {
    return this.definitions.definition(params.name, params.hash);
  }
}
