import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { McpObservationResult } from '@toolgate/contract';
import type { McpObservationInput } from '@toolgate/core';
import { SchemasRepository } from '../receipts/schemas.repository.ts';
import type { Actor } from '../resources/kind-hooks.ts';
import { ResourceStore } from '../resources/resource-store.service.ts';
import { knownHashes, observedStatus, statusOf } from './mcp-status-transitions.ts';
import { observedDefinitions } from './observed-definitions.ts';

const KIND = 'McpServer';

/**
 * A gateway reporting the tools an MCP server listed. The API hashes each definition itself,
 * stores the new ones content-addressed (for the console's diffs), and moves pins and drift
 * events under the server's row lock. Gateways report on every list they see, so an
 * observation that changes nothing is answered from the status without a write (for a minute).
 */
@Injectable()
export class McpObservationService {
  constructor(
    @Inject(ResourceStore) private readonly store: ResourceStore,
    @Inject(SchemasRepository) private readonly schemas: SchemasRepository,
  ) {}

  async observe(
    name: string,
    input: McpObservationInput,
    actor: Actor,
  ): Promise<McpObservationResult> {
    const observed = observedDefinitions(input);
    const known = knownHashes(statusOf(await this.store.get(KIND, name)));
    // Stored before the status refers to them, outside its transaction: content-addressed and
    // idempotent, so one left behind by a failed write is harmless.
    const fresh = observed.filter((tool) => !known.has(tool.hash));
    if (fresh.length > 0) await this.schemas.putMany(fresh);
    const { object } = await this.store.transition(KIND, name, actor, 'observe', (current) => {
      const status = observedStatus(statusOf(current), observed, actor.name, new Date(), driftId);
      return status === undefined ? undefined : { status };
    });
    return { tools: statusOf(object).tools };
  }
}

function driftId(): string {
  return `drift-${randomBytes(8).toString('hex')}`;
}
