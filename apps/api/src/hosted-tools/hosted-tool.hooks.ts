import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import {
  type FieldCause,
  forbiddenEndpointAddress,
  type HostedToolSpec,
  ValidationError,
} from '@toolgate/core';
import type { Tx } from '../database/prisma.service.ts';
import { type KindHooks, KindHooksRegistry } from '../resources/kind-hooks.ts';
import { ResourceRepository } from '../resources/resource.repository.ts';
import type { ObjectInput } from '../resources/stored-object.ts';

/** The gateway's own tool (progressive disclosure): no HostedTool may take its name. */
const BUILT_IN_TOOLS = new Set(['tool_info']);

/** Headers the gateway sets on every endpoint call itself (docs/hosted-tool-endpoints.md). */
const GATEWAY_HEADERS = new Set([
  'host',
  'content-type',
  'content-length',
  'transfer-encoding',
  'connection',
  'traceparent',
  'tracestate',
  'x-toolgate-call-id',
]);

/**
 * What the schema cannot tell of a HostedTool: the model's tool name is taken by no other
 * HostedTool (a model calling it must mean one endpoint) nor by the gateway's `tool_info`; the
 * endpoint is not a link-local or cloud metadata address (the gateway refuses those at call time
 * too); a header is given once and is not one the gateway sets itself; the arguments' schema is
 * an object schema.
 */
@Injectable()
export class HostedToolHooks implements KindHooks, OnModuleInit {
  readonly kind = 'HostedTool';

  constructor(
    @Inject(KindHooksRegistry) private readonly registry: KindHooksRegistry,
    @Inject(ResourceRepository) private readonly resources: ResourceRepository,
  ) {}

  onModuleInit(): void {
    this.registry.register(this);
  }

  async validate(input: ObjectInput, _actor: unknown, tx: Tx): Promise<void> {
    const spec = input.spec as HostedToolSpec;
    const causes: FieldCause[] = [];
    const toolName = spec.tool.name;
    if (BUILT_IN_TOOLS.has(toolName)) {
      causes.push({ field: 'spec.tool.name', message: `${toolName} is the gateway's own tool` });
    } else {
      const others = await this.resources.all('HostedTool', tx);
      const taken = others.find(
        (record) =>
          record.object.metadata.name !== input.metadata.name &&
          (record.object.spec as HostedToolSpec).tool.name === toolName,
      );
      if (taken) {
        causes.push({
          field: 'spec.tool.name',
          message: `${toolName} is already the tool of HostedTool "${taken.object.metadata.name}"`,
        });
      }
    }
    const type = spec.tool.parameters.type;
    if (type !== undefined && type !== 'object') {
      causes.push({ field: 'spec.tool.parameters.type', message: 'must be "object"' });
    }
    const host = new URL(spec.endpoint.url).hostname;
    const why = forbiddenEndpointAddress(host);
    if (why !== undefined) {
      causes.push({
        field: 'spec.endpoint.url',
        message: `${host} is ${why}, which hosted tools may not call`,
      });
    }
    const seen = new Set<string>();
    (spec.endpoint.headers ?? []).forEach((header, i) => {
      const key = header.name.toLowerCase();
      if (GATEWAY_HEADERS.has(key)) {
        causes.push({
          field: `spec.endpoint.headers[${i}].name`,
          message: `${header.name} is set by the gateway`,
        });
      } else if (seen.has(key)) {
        causes.push({ field: `spec.endpoint.headers[${i}].name`, message: 'is given twice' });
      }
      seen.add(key);
    });
    if (causes.length > 0) throw new ValidationError('HostedTool', causes);
  }
}
