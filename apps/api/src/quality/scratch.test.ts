import { afterAll, beforeAll, it } from 'vitest';
import { startTestApi, type TestApi } from '../testing/test-api.ts';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

async function show(label: string, p: Promise<Response>) {
  try {
    const r = await p;
    const t = await r.text();
    console.log(label, r.status, t.slice(0, 300));
  } catch (e) {
    console.log(label, 'THREW', (e as Error).message, (e as { cause?: unknown }).cause);
  }
}

it('probe', async () => {
  const t = api.operatorToken;
  const P = '/apis/toolgate.dev/v1';
  const deepObj = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);
  const deepArr = (n: number) => '['.repeat(n) + ']'.repeat(n);
  const contract = (await (await api.fetch(`${P}/capabilitycontracts`, { token: t })).json())
    .items[0];
  for (const n of [1000, 5000, 100000, 1000000]) {
    await show(
      `contract ${n}`,
      api.fetch(`${P}/capabilitycontracts?dryRun=All`, {
        method: 'POST',
        token: t,
        body: `{"apiVersion":"toolgate.dev/v1","kind":"CapabilityContract","metadata":{"name":"x.y.v1"},"spec":${JSON.stringify({ ...contract.spec, id: 'x.y.v1' }).replace('"requestSchema":{', `"requestSchema":{"deep":${deepObj(n)},`)}}`,
      }),
    );
    await show(
      `policy ${n}`,
      api.fetch(`${P}/mediationpolicies`, {
        method: 'POST',
        token: t,
        body: `{"apiVersion":"toolgate.dev/v1","kind":"MediationPolicy","metadata":{"name":"deep-${n}"},"spec":{"rules":[{"id":"a","action":"augment","match":{"name":"x"},"parameters":{"x":${deepObj(n)}}}]}}`,
      }),
    );
    await show(
      `preview ${n}`,
      api.fetch(`${P}/mediationpolicypreviews`, {
        method: 'POST',
        token: t,
        body: `{"spec":{"rules":[]},"request":{"model":"m","messages":[],"tools":[{"type":"function","function":{"name":"f","parameters":${deepObj(n)}}}]}}`,
      }),
    );
    await show(
      `schema ${n}`,
      api.fetch(`${P}/schemas/sha256:${'0'.repeat(64)}`, {
        method: 'PUT',
        token: t,
        body: `{"a":${deepArr(n)}}`,
      }),
    );
    await show(
      `labels ${n}`,
      api.fetch(`${P}/mediationpolicies?dryRun=All`, {
        method: 'POST',
        token: t,
        body: `{"apiVersion":"toolgate.dev/v1","kind":"MediationPolicy","metadata":{"name":"d","annotations":{"a":"b"}},"spec":{"rules":[]},"extra":${deepArr(n)}}`,
      }),
    );
  }
  await show('health', api.fetch('/healthz'));
});
