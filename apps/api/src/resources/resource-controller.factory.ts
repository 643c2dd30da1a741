import { Body, Controller, Inject, Param, Query, Res, type Type } from '@nestjs/common';
import {
  ListQuery,
  NameParams,
  PolicyWriteQuery,
  type ResourceKind,
  ROUTES,
  type RouteName,
  WriteQuery,
} from '@toolgate/contract';
import { inKeyOrderOf, parseLabelSelector } from '@toolgate/core';
import type { FastifyReply } from 'fastify';
import type { z } from 'zod';
import { CurrentActor } from '../auth/current-actor.decorator.ts';
import { Route } from '../common/route.decorator.ts';
import { ShutdownSignal } from '../common/shutdown-signal.ts';
import type { Actor } from './kind-hooks.ts';
import { ResourceStore } from './resource-store.service.ts';
import type { ObjectInput } from './stored-object.ts';
import { WatchService } from './watch.service.ts';

/** The route-table group of each kind (`mediationPolicies.create`, …). */
export const ROUTE_GROUP: Record<ResourceKind, string> = {
  MediationPolicy: 'mediationPolicies',
  Identity: 'identities',
  CapabilityContract: 'capabilityContracts',
  ProviderProfile: 'providerProfiles',
  Gateway: 'gateways',
  ToolCallApproval: 'toolCallApprovals',
  McpServer: 'mcpServers',
  HostedTool: 'hostedTools',
};

export type StandardOperation = 'list' | 'create' | 'get' | 'replace' | 'delete' | 'replaceStatus';
const ALL_OPERATIONS: ReadonlyArray<StandardOperation> = [
  'list',
  'create',
  'get',
  'replace',
  'delete',
  'replaceStatus',
];

type ListQueryValue = z.infer<typeof ListQuery>;
type WriteQueryValue = z.infer<typeof PolicyWriteQuery>;
type NameParamsValue = z.infer<typeof NameParams>;

/**
 * The six standard routes of a kind (list+watch, create, get, replace, delete, status), all
 * delegating to the generic store. Each kind's module mounts one; kind-specific behaviour lives
 * in that module's hooks and extra controllers. `operations`: the ones the kind's route table
 * has (a kind whose objects only the API writes mounts its read routes alone).
 */
export function createResourceController(
  kind: ResourceKind,
  operations: ReadonlyArray<StandardOperation> = ALL_OPERATIONS,
): Type<unknown> {
  const group = ROUTE_GROUP[kind];
  // A policy's create and replace also take the change note of the revision they make.
  const writeQuery = kind === 'MediationPolicy' ? PolicyWriteQuery : WriteQuery;
  const extrasOf = (query: WriteQueryValue) =>
    query.changeNote ? { changeNote: query.changeNote } : {};
  const name = (op: StandardOperation) => `${group}.${op}` as RouteName;
  const bodyOf = (op: StandardOperation) =>
    operations.includes(op) ? ROUTES[name(op)].body : undefined;
  // An operation the kind does not have is left a plain method: no route, nothing to reach.
  const mount = (op: StandardOperation): MethodDecorator =>
    operations.includes(op) ? Route(name(op)) : () => {};

  @Controller()
  class ResourceController {
    constructor(
      @Inject(ResourceStore) readonly store: ResourceStore,
      @Inject(WatchService) readonly watches: WatchService,
      @Inject(ShutdownSignal) readonly shutdown: ShutdownSignal,
    ) {}

    @mount('list')
    async list(
      @Query({ schema: ListQuery }) query: ListQueryValue,
      @Res({ passthrough: true }) reply: FastifyReply,
    ) {
      if (query.watch === 'true' || query.watch === '1') return this.watch(query, reply);
      const page = await this.store.list(kind, query);
      return {
        apiVersion: 'toolgate.dev/v1',
        kind: `${kind}List`,
        metadata: {
          resourceVersion: page.resourceVersion,
          ...(page.continue ? { continue: page.continue } : {}),
        },
        items: page.items,
      };
    }

    // `written`: the spec as sent, before its schema reordered its keys; the stored spec keeps
    // the writer's order (a person reads it back in the policy editor).
    @mount('create')
    create(
      @Body({ schema: bodyOf('create') }) body: ObjectInput,
      @Body('spec') written: unknown,
      @Query({ schema: writeQuery }) query: WriteQueryValue,
      @CurrentActor() actor: Actor,
    ) {
      return this.store.create(
        kind,
        { ...body, spec: inKeyOrderOf(body.spec, written) },
        actor,
        query.dryRun === 'All',
        extrasOf(query),
      );
    }

    @mount('get')
    get(@Param({ schema: NameParams }) params: NameParamsValue) {
      return this.store.get(kind, params.name);
    }

    @mount('replace')
    replace(
      @Param({ schema: NameParams }) params: NameParamsValue,
      @Body({ schema: bodyOf('replace') }) body: ObjectInput,
      @Body('spec') written: unknown,
      @Query({ schema: writeQuery }) query: WriteQueryValue,
      @CurrentActor() actor: Actor,
    ) {
      return this.store.replace(
        kind,
        params.name,
        { ...body, spec: inKeyOrderOf(body.spec, written) },
        actor,
        query.dryRun === 'All',
        'update',
        extrasOf(query),
      );
    }

    @mount('delete')
    delete(
      @Param({ schema: NameParams }) params: NameParamsValue,
      @Query({ schema: WriteQuery }) query: WriteQueryValue,
      @CurrentActor() actor: Actor,
    ) {
      return this.store.delete(kind, params.name, actor, query.dryRun === 'All');
    }

    @mount('replaceStatus')
    replaceStatus(
      @Param({ schema: NameParams }) params: NameParamsValue,
      @Body({ schema: bodyOf('replaceStatus') })
      body: { metadata?: { resourceVersion?: string }; status: Record<string, unknown> },
      @Query({ schema: WriteQuery }) query: WriteQueryValue,
      @CurrentActor() actor: Actor,
    ) {
      return this.store.replaceStatus(
        kind,
        params.name,
        body.status,
        body.metadata?.resourceVersion,
        actor,
        query.dryRun === 'All',
      );
    }

    /** Newline-delimited JSON watch events until the client leaves or the timeout passes. */
    private async watch(query: ListQueryValue, reply: FastifyReply) {
      const selector = query.labelSelector ? parseLabelSelector(query.labelSelector) : {};
      const from = BigInt(
        query.resourceVersion ?? (await this.store.list(kind, { limit: 1 })).resourceVersion,
      );
      const abort = new AbortController();
      const timeout = setTimeout(() => abort.abort(), (query.timeoutSeconds ?? 1800) * 1000);
      reply.raw.on('close', () => abort.abort());
      const events = await this.watches.open(
        kind,
        from,
        selector,
        this.shutdown.combine(abort.signal),
      );
      reply.hijack();
      reply.raw.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      // Send the headers now: the client's request completes on them, before any event.
      reply.raw.flushHeaders();
      try {
        for await (const event of events) reply.raw.write(`${JSON.stringify(event)}\n`);
      } finally {
        clearTimeout(timeout);
        reply.raw.end();
      }
    }
  }
  Object.defineProperty(ResourceController, 'name', { value: `${kind}Controller` });
  return ResourceController;
}
