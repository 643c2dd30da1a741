import type { ApiClient, CallInput, CallOutput, RouteName, Routes } from '@toolgate/contract';
import type { TestApi } from '../testing/test-api.ts';

/** Test support for the receipt tests: gateways with tokens, and calls typed without `null`. */

/** A registered Gateway whose identity (role `gateway`) holds the returned client's token. */
export async function registerGateway(api: TestApi, name: string): Promise<ApiClient> {
  const { client } = await api.identity(`${name}-identity`, ['gateway']);
  await api.operator.call('gateways.create', {
    body: {
      apiVersion: 'toolgate.dev/v1',
      kind: 'Gateway',
      metadata: { name },
      spec: { identity: `${name}-identity` },
    },
  });
  return client;
}

/** `client.call` for routes that always answer with a body. */
export async function call<N extends RouteName>(
  client: ApiClient,
  name: N,
  input: CallInput<Routes[N]> = {},
): Promise<NonNullable<CallOutput<Routes[N]>>> {
  return (await client.call(name, input)) as NonNullable<CallOutput<Routes[N]>>;
}
