import { isWellFormedString } from '@toolgate/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readStatus, startTestApi, type TestApi } from '../testing/test-api.ts';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

const body = (name: string, rules: unknown[]) => ({
  apiVersion: 'toolgate.dev/v1' as const,
  kind: 'MediationPolicy' as const,
  metadata: { name },
  spec: { rules } as never,
});
const hidePr = { id: 'hide-pr', action: 'hide', match: { name: 'create_pull_request' } };
const denyMerge = { id: 'no-merge', action: 'deny', match: { name: 'merge' } };
const ITEMS = '/apis/toolgate.dev/v1/mediationpolicies';

describe('a revision keeps its change note and, for a rollback, the generation it restored', () => {
  it('stores the note of a create, a replace and a rollback, and marks the rollback', async () => {
    const v1 = await api.operator.call('mediationPolicies.create', {
      query: { changeNote: 'first cut: no agent opens PRs' },
      body: body('noted', [hidePr]),
    });
    const v2 = await api.operator.call('mediationPolicies.replace', {
      params: { name: 'noted' },
      query: { changeNote: 'also no merges (INC-42)' },
      body: { ...body('noted', [hidePr, denyMerge]), metadata: v1.metadata },
    });
    // A dry run stores nothing, note included.
    await api.operator.call('mediationPolicies.replace', {
      params: { name: 'noted' },
      query: { dryRun: 'All', changeNote: 'not stored' },
      body: { ...body('noted', []), metadata: v2.metadata },
    });
    await api.operator.call('policies.rollback', {
      params: { name: 'noted' },
      body: { toGeneration: 1, changeNote: 'merges are fine again' },
    });
    await api.operator.call('policies.rollback', {
      params: { name: 'noted' },
      body: { toGeneration: 2 },
    });
    const history = await api.operator.call('policies.revisions', { params: { name: 'noted' } });
    expect(
      history.items.map((r) => ({
        generation: r.generation,
        changeNote: r.changeNote,
        rollbackOf: r.rollbackOf,
      })),
    ).toEqual([
      { generation: 4, changeNote: undefined, rollbackOf: 2 },
      { generation: 3, changeNote: 'merges are fine again', rollbackOf: 1 },
      { generation: 2, changeNote: 'also no merges (INC-42)', rollbackOf: undefined },
      { generation: 1, changeNote: 'first cut: no agent opens PRs', rollbackOf: undefined },
    ]);
    const one = await api.operator.call('policies.revision', {
      params: { name: 'noted', generation: 2 },
    });
    expect(one.changeNote).toBe('also no merges (INC-42)');
  });

  it('refuses a note that is too long, multi-line or ill-formed, naming the field, storing nothing', async () => {
    const cases = [
      'x'.repeat(501),
      'line one\nline two',
      `bell${String.fromCharCode(7)}`,
      `lone ${String.fromCharCode(0xd800)} surrogate`,
    ];
    for (const note of cases) {
      // A lone surrogate cannot be put in a URL (it is not UTF-8): only the JSON body can carry one.
      const inUrl = isWellFormedString(note);
      if (inUrl) {
        const response = await api.fetch(`${ITEMS}?changeNote=${encodeURIComponent(note)}`, {
          method: 'POST',
          token: api.operatorToken,
          body: JSON.stringify(body('refused', [hidePr])),
        });
        expect(response.status, JSON.stringify(note.slice(0, 20))).toBe(400);
        expect(JSON.stringify(await readStatus(response))).toContain('changeNote');
      }
      const rollback = await api.fetch(`${ITEMS}/noted/rollback`, {
        method: 'POST',
        token: api.operatorToken,
        body: JSON.stringify({ toGeneration: 1, changeNote: note }),
      });
      // An ill-formed body is refused (400) before any schema runs, naming the field all the same.
      expect(rollback.status).toBe(inUrl ? 422 : 400);
      expect(JSON.stringify(await readStatus(rollback))).toContain('changeNote');
    }
    const missing = await api.fetch(`${ITEMS}/refused`, { token: api.operatorToken });
    expect(missing.status).toBe(404);
    const history = await api.operator.call('policies.revisions', { params: { name: 'noted' } });
    expect(history.items).toHaveLength(4);
    // Other kinds take no note: the query stays strict for them.
    const identity = await api.fetch('/apis/toolgate.dev/v1/identities?changeNote=x', {
      method: 'POST',
      token: api.operatorToken,
      body: JSON.stringify({}),
    });
    expect(identity.status).toBe(400);
  });
});
