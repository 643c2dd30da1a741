import { Inject, Injectable } from '@nestjs/common';
import { NotFoundError } from '@toolgate/core';
import { SchemasRepository } from '../receipts/schemas.repository.ts';
import { ResourceStore } from '../resources/resource-store.service.ts';
import { knownHashes, statusOf } from './mcp-status-transitions.ts';

/**
 * A definition one of the server's pins or drift events refers to, for the console's diff.
 * Only those: the route does not open the whole schema store to anyone who can read servers.
 */
@Injectable()
export class McpDefinitionsService {
  constructor(
    @Inject(ResourceStore) private readonly store: ResourceStore,
    @Inject(SchemasRepository) private readonly schemas: SchemasRepository,
  ) {}

  async definition(name: string, hash: string): Promise<Record<string, unknown>> {
    const server = await this.store.get('McpServer', name);
    if (!knownHashes(statusOf(server)).has(hash)) {
      throw new NotFoundError('McpToolDefinition', `${name}/${hash}`);
    }
    const body = await this.schemas.get(hash);
    if (body === undefined) throw new NotFoundError('McpToolDefinition', `${name}/${hash}`);
    return body;
  }
}
