import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { AuditRepository } from '../audit/audit.repository.ts';
import { type KindHooks, KindHooksRegistry, type WriteContext } from '../resources/kind-hooks.ts';
import type { StoredObject } from '../resources/stored-object.ts';
import { statusOf } from './mcp-status-transitions.ts';

/**
 * The status of an McpServer is the API's: empty on create, and kept (pins and drift events
 * survive) when an operator changes the spec. Each drift detected and each definition pinned
 * by an accept gets its own audit entry, naming the tool and both hashes, in the same
 * transaction as the status write.
 */
@Injectable()
export class McpServerHooks implements KindHooks, OnModuleInit {
  readonly kind = 'McpServer';

  constructor(
    @Inject(KindHooksRegistry) private readonly registry: KindHooksRegistry,
    @Inject(AuditRepository) private readonly audit: AuditRepository,
  ) {}

  onModuleInit(): void {
    this.registry.register(this);
  }

  statusFor(object: StoredObject): Record<string, unknown> {
    return statusOf(object);
  }

  async afterWrite({ tx, actor, before, after }: WriteContext): Promise<void> {
    if (before === undefined || after === undefined) return;
    const old = statusOf(before);
    const now = statusOf(after);
    const name = after.metadata.name;
    const known = new Set(old.drifts.map((drift) => drift.id));
    for (const drift of now.drifts) {
      if (known.has(drift.id)) continue;
      await this.audit.append(tx, {
        actor: actor.name,
        verb: 'McpToolDrifted',
        kind: 'McpServer',
        name,
        beforeHash: drift.from,
        afterHash: drift.to,
        details: { tool: drift.tool, drift: drift.id, mode: driftMode(after) },
      });
    }
    const pinned = new Map(old.tools.map((tool) => [tool.name, tool.pinned]));
    for (const tool of now.tools) {
      const from = pinned.get(tool.name);
      if (from === undefined || from === tool.pinned) continue;
      await this.audit.append(tx, {
        actor: actor.name,
        verb: 'McpToolAccepted',
        kind: 'McpServer',
        name,
        beforeHash: from,
        afterHash: tool.pinned,
        details: { tool: tool.name },
      });
    }
  }
}

function driftMode(object: StoredObject): string {
  return (object.spec as { drift?: string }).drift ?? 'warn';
}
