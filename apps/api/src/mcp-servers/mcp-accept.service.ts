import { Inject, Injectable } from '@nestjs/common';
import { ConflictError, type McpAcceptInput, NotFoundError } from '@toolgate/core';
import type { Actor } from '../resources/kind-hooks.ts';
import { ResourceStore } from '../resources/resource-store.service.ts';
import type { StoredObject } from '../resources/stored-object.ts';
import { acceptedStatus, statusOf } from './mcp-status-transitions.ts';

const KIND = 'McpServer';

/**
 * An operator accepting a tool's new definition: its latest is pinned, its open drifts are
 * `accepted`. With `hash`, only if that is still the latest: an operator who reviewed one
 * definition never pins another that arrived meanwhile (409).
 */
@Injectable()
export class McpAcceptService {
  constructor(@Inject(ResourceStore) private readonly store: ResourceStore) {}

  async accept(name: string, input: McpAcceptInput, actor: Actor): Promise<StoredObject> {
    const { object } = await this.store.transition(KIND, name, actor, 'accept', (current) => {
      const status = statusOf(current);
      const tool = status.tools.find((t) => t.name === input.tool);
      if (tool === undefined) throw new NotFoundError('McpTool', `${name}/${input.tool}`);
      if (input.hash !== undefined && input.hash !== tool.latest) {
        throw new ConflictError(
          KIND,
          name,
          `the latest definition of ${input.tool} is ${tool.latest}, not ${input.hash}: review it and accept again`,
        );
      }
      const next = acceptedStatus(status, tool, actor.name, new Date());
      return next === undefined ? undefined : { status: next };
    });
    return object;
  }
}
