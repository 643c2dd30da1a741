import type { GatewayStatus } from '@toolgate/core';
import { until } from '@toolgate/core/testing';
import type { TestApi } from '../../../api/src/testing/test-api.ts';

/**
 * The control-plane side of the fault-injection tests: registering gateways and policies through
 * the real API, and reading back what it stores (receipts, chain verification, Gateway.status).
 */

/** A `Gateway` resource with its own identity (role `gateway`); returns that identity's token. */
export async function registerGateway(
  api: TestApi,
  name: string,
  labels: Record<string, string>,
): Promise<string> {
  const { token } = await api.identity(`${name}-id`, ['gateway']);
  await api.operator.call('gateways.create', {
    body: {
      apiVersion: 'toolgate.dev/v1',
      kind: 'Gateway',
      metadata: { name, labels },
      spec: { identity: `${name}-id` },
    },
  });
  return token;
}

/** A MediationPolicy object selecting gateways by `labels`. */
export function policyObject(name: string, labels: Record<string, string>, rules: unknown[]) {
  return {
    apiVersion: 'toolgate.dev/v1' as const,
    kind: 'MediationPolicy' as const,
    metadata: { name },
    spec: { selector: { matchLabels: labels }, rules } as never,
  };
}

/** A policy hiding the tool `tool` from the provider. */
export function hideRule(id: string, tool: string) {
  return { id, action: 'hide', match: { name: tool } };
}

/** Every receipt id the API stores for `gateway`, across all pages, in listing order. */
export async function storedReceiptIds(api: TestApi, gateway: string): Promise<string[]> {
  const ids: string[] = [];
  let next: string | undefined;
  do {
    const page = await api.operator.call('receipts.list', {
      query: { gateway, limit: 500, ...(next ? { continue: next } : {}) },
    });
    ids.push(...page.items.map((item) => item.id));
    next = page.metadata.continue;
  } while (next);
  return ids;
}

export function verifyChain(api: TestApi, gateway: string) {
  return api.operator.call('receipts.verify', { params: { name: gateway } });
}

/** One receipt, in full. */
export async function storedReceipt(api: TestApi, id: string) {
  return (await api.operator.call('receipts.get', { params: { id } })).receipt;
}

export async function gatewayStatus(api: TestApi, name: string): Promise<GatewayStatus> {
  const gateway = await api.operator.call('gateways.get', { params: { name } });
  return gateway.status ?? { conditions: [] }; // not reported yet
}

/** The `Synced` condition the gateway last reported (undefined before its first report). */
export async function syncedCondition(api: TestApi, name: string) {
  const status = await gatewayStatus(api, name);
  return status.conditions?.find((condition) => condition.type === 'Synced');
}

/** Waits until the gateway reports `Synced=True` in its status. */
export function untilSynced(
  api: TestApi,
  name: string,
  timeoutMs: number,
  what: string | (() => string) = 'Synced=True',
): Promise<void> {
  return until(async () => (await syncedCondition(api, name))?.status === 'True', timeoutMs, what);
}

/** OpenAI function tools with a small schema each. */
export function openAITools(names: string[]) {
  return names.map((name) => ({
    type: 'function' as const,
    function: {
      name,
      description: `${name.replaceAll('_', ' ')} in the repository`,
      parameters: {
        type: 'object',
        properties: { repo: { type: 'string' } },
        required: ['repo'],
      },
    },
  }));
}

/** Names of the tools a request the mock provider logged declared. */
export function providerToolNames(body: unknown): string[] {
  const tools = (body as { tools?: Array<{ function?: { name?: string }; name?: string }> }).tools;
  return (tools ?? []).map((tool) => tool.function?.name ?? tool.name ?? '?');
}
