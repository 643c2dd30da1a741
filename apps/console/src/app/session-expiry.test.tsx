import { QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import { SessionProvider } from '../shared/auth/session.tsx';
import { createQueryClient } from './query-client.ts';
import { routes } from './routes.tsx';

/** Built at run time, like every test secret. */
const OLD_TOKEN = ['tg', 'revoked', 'one'].join('_');
const NEW_TOKEN = ['tg', 'fresh', 'one'].join('_');
const WHOAMI = '/apis/toolgate.dev/v1/whoami';
const POLICIES = '/apis/toolgate.dev/v1/mediationpolicies';
const APPROVALS = '/apis/toolgate.dev/v1/toolcallapprovals';

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
const unauthorized = () =>
  json(401, { kind: 'Status', code: 401, reason: 'Unauthorized', message: 'token revoked' });

/**
 * The API as the console meets it after a token was revoked: whoami still cached as fine, but
 * the next call with the old token is a 401; the new token is accepted everywhere.
 */
function stubApi() {
  const seen: string[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: URL | string, init?: RequestInit) => {
      const url = new URL(String(input));
      const auth = new Headers(init?.headers).get('authorization') ?? '';
      seen.push(`${url.pathname} ${auth.endsWith(NEW_TOKEN) ? 'new' : 'old'}`);
      if (url.pathname === WHOAMI) {
        return json(200, { identity: 'ops', type: 'human', roles: ['operator'] });
      }
      // The navigation's pending count still works with the old token: the 401 that ends the
      // session is the page's own call.
      if (url.pathname === APPROVALS) {
        return json(200, { kind: 'ToolCallApprovalList', metadata: {}, items: [] });
      }
      if (!auth.endsWith(NEW_TOKEN)) return unauthorized();
      if (url.pathname === POLICIES) {
        return json(200, { kind: 'MediationPolicyList', metadata: {}, items: [] });
      }
      return json(404, { kind: 'Status', code: 404, reason: 'NotFound', message: 'none' });
    }),
  );
  return seen;
}

function renderApp(path: string) {
  const router = createMemoryRouter(routes, { initialEntries: [path] });
  render(
    <QueryClientProvider client={createQueryClient()}>
      <SessionProvider initialToken={OLD_TOKEN}>
        <RouterProvider router={router} />
      </SessionProvider>
    </QueryClientProvider>,
  );
  return router;
}

describe('a 401 from any call', () => {
  it('signs out and returns to the page after sign-in, query string and fragment included', async () => {
    const seen = stubApi();
    const router = renderApp('/policies?sort=name#top');

    await screen.findByText(/Your session has ended/);
    const signIn = new URL(
      `${router.state.location.pathname}${router.state.location.search}`,
      'https://console.invalid',
    );
    expect(signIn.pathname).toBe('/sign-in');
    expect(signIn.searchParams.get('next')).toBe('/policies?sort=name#top');
    expect(sessionStorage.getItem('toolgate.token')).toBeNull();
    expect(seen).toContain(`${POLICIES} old`);

    fireEvent.change(screen.getByLabelText('API token'), { target: { value: NEW_TOKEN } });
    fireEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/policies'));
    expect(router.state.location.search).toBe('?sort=name');
    expect(router.state.location.hash).toBe('#top');
    await screen.findByRole('heading', { name: 'Policies' });
    // The page's heading renders before its list is fetched: wait for the request itself.
    await waitFor(() => expect(seen).toContain(`${POLICIES} new`));
  });

  it('never follows a next that leaves the console', async () => {
    stubApi();
    const router = renderApp('/sign-in?next=//evil.example/steal');
    fireEvent.change(await screen.findByLabelText('API token'), { target: { value: NEW_TOKEN } });
    fireEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/'));
  });

  it('signing out on purpose starts afresh: no way back to the page', async () => {
    stubApi();
    const router = renderApp('/sign-in');
    fireEvent.change(await screen.findByLabelText('API token'), { target: { value: NEW_TOKEN } });
    fireEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/'));
    await router.navigate('/policies?sort=name');
    fireEvent.click(await screen.findByRole('button', { name: 'Sign out' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/sign-in'));
    expect(router.state.location.search).toBe('');
    expect(screen.queryByText(/Your session has ended/)).toBeNull();
  });
});
