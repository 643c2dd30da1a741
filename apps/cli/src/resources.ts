import type { ApiClient } from '@toolgate/contract';
import { type ResourceKind, ROUTE_GROUPS } from './kinds.ts';

/** Any stored object as the API returns it. */
export interface StoredResource {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    uid: string;
    labels: Record<string, string>;
    annotations: Record<string, string>;
    generation: number;
    resourceVersion: string;
    creationTimestamp: string;
  };
  spec: unknown;
  status?: Record<string, unknown>;
}

/** What apply and diff send: the writable envelope. */
export interface ResourceInput {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    resourceVersion?: string;
  };
  spec: unknown;
}

/**
 * The standard routes of one kind through the typed client. The route name is computed from the
 * kind, so the calls are typed as one representative kind's; every kind's routes share the
 * envelope shapes, and the API validates each body with the kind's own schema.
 */
export function resourceApi(client: ApiClient, kind: ResourceKind) {
  const group = ROUTE_GROUPS[kind];
  const route = <Op extends string>(op: Op) => `${group}.${op}` as `mediationPolicies.${Op}`;
  const dryRun = (on: boolean) => (on ? { dryRun: 'All' as const } : {});
  return {
    async get(name: string): Promise<StoredResource> {
      return (await client.call(route('get'), { params: { name } })) as StoredResource;
    },
    async list(): Promise<StoredResource[]> {
      const items: StoredResource[] = [];
      let next: string | undefined;
      do {
        const page = await client.call(route('list'), {
          query: { limit: 500, ...(next ? { continue: next } : {}) },
        });
        items.push(...((page?.items ?? []) as StoredResource[]));
        next = page?.metadata.continue;
      } while (next);
      return items;
    },
    async create(body: ResourceInput, options: { dryRun?: boolean } = {}) {
      return (await client.call(route('create'), {
        query: dryRun(options.dryRun ?? false),
        body: body as never,
      })) as StoredResource;
    },
    async replace(body: ResourceInput, options: { dryRun?: boolean } = {}) {
      return (await client.call(route('replace'), {
        params: { name: body.metadata.name },
        query: dryRun(options.dryRun ?? false),
        body: body as never,
      })) as StoredResource;
    },
  };
}
