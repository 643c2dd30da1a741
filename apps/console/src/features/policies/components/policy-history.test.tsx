import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderWithApi } from '../../../test/render.tsx';
import { PolicyHistory } from './policy-history.tsx';

const REVISIONS = 'GET /apis/toolgate.dev/v1/mediationpolicies/repo-guard/revisions';
const rule = (action: string) => ({ id: 'no-merge', action, match: { name: 'merge' } });
const hashA = `sha256:${'a'.repeat(64)}`;
const hashB = `sha256:${'b'.repeat(64)}`;
const revision = (generation: number, hash: string, spec: unknown, extra = {}) => ({
  name: 'repo-guard',
  generation,
  hash,
  author: 'alice',
  createdAt: '2026-01-01T00:00:00Z',
  spec,
  ...extra,
});
const ITEMS = [
  revision(3, hashA, { rules: [rule('hide')] }, { rollbackOf: 1, changeNote: 'merges are fine' }),
  revision(2, hashB, { rules: [rule('deny')] }, { changeNote: 'INC-42' }),
  revision(1, hashA, { rules: [rule('hide')] }),
];

describe('PolicyHistory', () => {
  it('reads each generation’s changes in words, its note, and marks rollbacks', async () => {
    renderWithApi(<PolicyHistory name="repo-guard" current={3} onCompare={() => {}} />, {
      responses: { [REVISIONS]: { body: { items: ITEMS } } },
    });
    const rows = (await screen.findAllByRole('row')).slice(1);
    const [third, second, first] = rows.map((row) => within(row));
    expect(third?.getByText('rolled back to generation 1')).toBeTruthy();
    expect(third?.getByText('“merges are fine”')).toBeTruthy();
    expect(third?.getByText('rule no-merge: action changed from deny to hide')).toBeTruthy();
    expect(second?.getByText('rule no-merge: action changed from hide to deny')).toBeTruthy();
    expect(second?.getByText('“INC-42”')).toBeTruthy();
    expect(second?.queryByText(/rolled back/)).toBeNull();
    expect(first?.getByText('created')).toBeTruthy();
  });

  it('offers no rollback to a generation whose spec is the current one', async () => {
    renderWithApi(<PolicyHistory name="repo-guard" current={3} onCompare={() => {}} />, {
      responses: { [REVISIONS]: { body: { items: ITEMS } } },
    });
    await screen.findAllByRole('row');
    expect(
      screen.getAllByRole('button', { name: /^Roll back to/ }).map((b) => b.textContent),
    ).toEqual(['Roll back to 2']);
    expect(screen.getByText('same spec as current')).toBeTruthy();
  });
});
