import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { META, renderWithApi } from '../../../test/render.tsx';
import { IdentitiesPage } from './identities-page.tsx';

const BASE = '/apis/toolgate.dev/v1/identities';
const identity = (name: string, roles: string[], status?: unknown) => ({
  apiVersion: 'toolgate.dev/v1',
  kind: 'Identity',
  metadata: { ...META, name, resourceVersion: '7' },
  spec: { type: 'human', roles },
  ...(status ? { status } : {}),
});
const list = (items: unknown[]) => ({
  apiVersion: 'toolgate.dev/v1',
  kind: 'IdentityList',
  metadata: { resourceVersion: '9' },
  items,
});
const usedAt = new Date(Date.now() - 5 * 60_000).toISOString();

afterEach(() => vi.unstubAllGlobals());

describe('IdentitiesPage', () => {
  it('shows the active token count and last use the API derives', async () => {
    renderWithApi(<IdentitiesPage />, {
      responses: {
        [`GET ${BASE}`]: {
          body: list([
            identity('alice', ['auditor'], { tokens: { active: 2, lastUsedTime: usedAt } }),
          ]),
        },
      },
    });
    const row = await screen.findByRole('row', { name: /alice/ });
    const cells = within(row).getAllByRole('cell');
    expect(cells.some((cell) => cell.textContent === '2')).toBe(true);
    expect(within(row).getByText('5 min ago')).toBeTruthy();
  });

  it('edits roles with the loaded resourceVersion and says so on a concurrent change', async () => {
    const sent: unknown[] = [];
    let answer = 200;
    renderWithApi(<IdentitiesPage />, {
      responses: {
        [`GET ${BASE}`]: { body: list([identity('bob', ['auditor'])]) },
        [`PUT ${BASE}/bob`]: ({ body }) => {
          sent.push(body);
          return answer === 200
            ? { body: identity('bob', ['auditor', 'operator']) }
            : {
                status: 409,
                body: { kind: 'Status', code: 409, reason: 'Conflict', message: 'conflict' },
              };
        },
      },
    });
    fireEvent.click(await screen.findByRole('button', { name: 'Edit roles of bob' }));
    const form = screen.getByRole('form', { name: 'Roles of bob' });
    fireEvent.click(within(form).getByLabelText('auditor'));
    expect(within(form).getByText('Choose at least one role.')).toBeTruthy();
    expect(
      (within(form).getByRole('button', { name: 'Save roles' }) as HTMLButtonElement).disabled,
    ).toBe(true);
    fireEvent.click(within(form).getByLabelText('auditor'));
    fireEvent.click(within(form).getByLabelText('operator'));
    answer = 409;
    fireEvent.click(within(form).getByRole('button', { name: 'Save roles' }));
    expect(await within(form).findByRole('alert')).toHaveProperty(
      'textContent',
      'bob was changed meanwhile; its current roles are shown, edit them again.',
    );
    expect(sent[0]).toMatchObject({
      metadata: { name: 'bob', resourceVersion: '7' },
      spec: { type: 'human', roles: ['auditor', 'operator'] },
    });
    answer = 200;
    fireEvent.click(within(form).getByRole('button', { name: 'Save roles' }));
    await waitFor(() => expect(screen.queryByRole('form', { name: 'Roles of bob' })).toBeNull());
  });

  it('deletes an identity only after confirming, naming its active tokens', async () => {
    const confirm = vi.fn(() => false);
    vi.stubGlobal('confirm', confirm);
    const { calls } = renderWithApi(<IdentitiesPage />, {
      responses: {
        [`GET ${BASE}`]: {
          body: list([identity('carol', ['auditor'], { tokens: { active: 3 } })]),
        },
        [`DELETE ${BASE}/carol`]: { body: identity('carol', ['auditor']) },
      },
    });
    const remove = await screen.findByRole('button', { name: 'Delete identity carol' });
    fireEvent.click(remove);
    expect(confirm).toHaveBeenCalledWith(
      'Delete identity carol? Its 3 active tokens stop working at once.',
    );
    expect(calls.some((c) => c.startsWith('DELETE'))).toBe(false);
    confirm.mockReturnValue(true);
    fireEvent.click(remove);
    await waitFor(() => expect(calls).toContain(`DELETE ${BASE}/carol`));
  });

  it('hides role editing and deletion from auditors', async () => {
    renderWithApi(<IdentitiesPage />, {
      roles: ['auditor'],
      responses: { [`GET ${BASE}`]: { body: list([identity('dave', ['auditor'])]) } },
    });
    await screen.findByRole('row', { name: /dave/ });
    expect(screen.queryByRole('button', { name: /Edit roles/ })).toBeNull();
    expect(screen.queryByRole('button', { name: /Delete identity/ })).toBeNull();
  });

  it('says "Copied" after copying a new token', async () => {
    const writeText = vi.fn(async () => {});
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    const secret = ['tg', 'x'.repeat(20)].join('_');
    renderWithApi(<IdentitiesPage />, {
      responses: {
        [`GET ${BASE}`]: { body: list([identity('erin', ['auditor'])]) },
        [`GET ${BASE}/erin/tokens`]: { body: { items: [] } },
        [`POST ${BASE}/erin/tokens`]: {
          status: 201,
          body: {
            id: 't1',
            identity: 'erin',
            description: '',
            createdAt: usedAt,
            expiresAt: null,
            revokedAt: null,
            lastUsedAt: null,
            token: secret,
          },
        },
      },
    });
    fireEvent.click(await screen.findByRole('button', { name: 'Tokens of erin' }));
    fireEvent.click(await screen.findByRole('button', { name: 'Issue token' }));
    fireEvent.click(await screen.findByRole('button', { name: /^Copy/ }));
    expect(await screen.findByText(/Copied/)).toBeTruthy();
    expect(writeText).toHaveBeenCalledWith(secret);
  });
});
