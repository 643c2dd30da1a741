import { afterAll, beforeAll, it } from 'vitest';
import { startTestApi, type TestApi } from '../testing/test-api.ts';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(async () => {
  const t = Date.now();
  await api.close();
  console.log('close took', Date.now() - t);
});

it('probe', async () => {
  const P = '/apis/toolgate.dev/v1';
  const t0 = Date.now();
  const ac = new AbortController();
  const p = api.fetch(`${P}/mediationpolicies?watch=true`, {
    token: api.operatorToken,
    signal: ac.signal,
  });
  const timer = setTimeout(() => ac.abort(), 2000);
  try {
    const r = await p;
    console.log('status', r.status, Date.now() - t0);
    await r.body?.cancel();
  } catch (e) {
    console.log('threw', (e as Error).message, Date.now() - t0);
  }
  clearTimeout(timer);
});
