import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../testing/test-api.ts';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

const P = '/apis/toolgate.dev/v1/mediationpolicies';

/**
 * A spec in an order neither its schema (selector, priority, mode, rules; a rule's id, match,
 * action) nor jsonb (shortest key first) would produce, with the schema's defaults left out.
 */
const WRITTEN = {
  rules: [
    {
      match: { name: 'create_pull_request' },
      id: 'hide-pr',
      action: 'hide',
    },
    {
      description_append: 'Scoped.',
      action: 'augment',
      match: { name: 'search' },
      id: 'scope',
    },
  ],
  priority: 5,
  mode: 'patch',
};
const ORDER = {
  spec: ['rules', 'priority', 'mode'],
  rules: [
    ['match', 'id', 'action'],
    ['description_append', 'action', 'match', 'id'],
  ],
};

function policy(name: string, spec: unknown, resourceVersion?: string) {
  return {
    apiVersion: 'toolgate.dev/v1',
    kind: 'MediationPolicy',
    metadata: { name, ...(resourceVersion ? { resourceVersion } : {}) },
    spec,
  };
}

/** A spec's keys as the JSON text listed them; the defaults the API filled in come last. */
function expectWrittenOrder(spec: { rules: object[] }): void {
  const keys = Object.keys(spec);
  expect(keys.slice(0, ORDER.spec.length)).toEqual(ORDER.spec);
  expect(keys.slice(ORDER.spec.length).sort()).toEqual(['selector', 'unknownIdentities']);
  expect(spec.rules.map((rule) => Object.keys(rule))).toEqual(ORDER.rules);
}

async function read<T>(path: string): Promise<T> {
  const response = await api.fetch(path, { token: api.operatorToken });
  expect(response.status, path).toBe(200);
  // JSON.parse keeps the text's key order: what the check reads is what the API sent.
  return JSON.parse(await response.text()) as T;
}

async function write(method: 'POST' | 'PUT', path: string, body: unknown) {
  const response = await api.fetch(path, {
    method,
    token: api.operatorToken,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(response.status, `${method} ${path}`).toBeLessThan(300);
  return JSON.parse(await response.text()) as {
    metadata: { resourceVersion: string; generation: number };
    spec: { rules: object[] };
  };
}

describe("a policy spec's key order", () => {
  it('is the order it was written in, on every read: the object, a list, history, rollback', async () => {
    const created = await write('POST', P, policy('ordered', WRITTEN));
    expectWrittenOrder(created.spec);
    expectWrittenOrder((await read<{ spec: { rules: object[] } }>(`${P}/ordered`)).spec);
    const list = await read<{ items: Array<{ metadata: { name: string }; spec: never }> }>(P);
    expectWrittenOrder(list.items.find((item) => item.metadata.name === 'ordered')?.spec as never);

    // The next generation in yet another order: stored as written, the first kept as it was.
    const reordered = { mode: 'patch', priority: 6, rules: WRITTEN.rules };
    const replaced = await write(
      'PUT',
      `${P}/ordered`,
      policy('ordered', reordered, created.metadata.resourceVersion),
    );
    expect(Object.keys(replaced.spec).slice(0, 3)).toEqual(['mode', 'priority', 'rules']);
    const first = await read<{ spec: { rules: object[] } }>(`${P}/ordered/revisions/1`);
    expectWrittenOrder(first.spec);
    const history = await read<{ items: Array<{ generation: number; spec: never }> }>(
      `${P}/ordered/revisions`,
    );
    expectWrittenOrder(history.items.find((r) => r.generation === 1)?.spec as never);

    const rolled = await api.operator.call('policies.rollback', {
      params: { name: 'ordered' },
      body: { toGeneration: 1 },
    });
    expect(rolled.metadata.generation).toBe(3);
    expectWrittenOrder((await read<{ spec: { rules: object[] } }>(`${P}/ordered`)).spec);
  });

  it('does not change what the spec is: the same revision hash in any key order', async () => {
    const a = await write('POST', P, policy('order-a', WRITTEN));
    const shuffled = {
      mode: 'patch',
      rules: WRITTEN.rules.map((rule) => Object.fromEntries(Object.entries(rule).reverse())),
      priority: 5,
    };
    const b = await write('POST', P, policy('order-b', shuffled));
    const hash = (o: unknown) => (o as { status: { revisionHash?: string } }).status.revisionHash;
    expect(hash(a)).toBeDefined();
    expect(hash(b)).toBe(hash(a));
  });

  it('still lets receipts be found by a bare rule id (revisions are read as jsonb there)', async () => {
    const rules = await api.operator.call('receipts.values', { params: { field: 'rule' } });
    expect(rules?.items).toEqual(expect.arrayContaining(['ordered/hide-pr', 'ordered/scope']));
    const listed = await api.operator.call('receipts.list', { query: { rule: 'hide-pr' } });
    expect(listed?.items).toEqual([]);
  });
});
