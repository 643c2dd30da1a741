import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import type { Role } from '@toolgate/core';
import type { ReactNode } from 'react';
import { createMemoryRouter, MemoryRouter, RouterProvider } from 'react-router';
import { vi } from 'vitest';
import { SessionProvider } from '../shared/auth/session.tsx';

/** Any token: the stubbed API accepts it (built, not written out, like every test secret). */
const TEST_TOKEN = ['tg', 'component-test'].join('_');

type Answer = { status?: number; body: unknown };
/** A fixed answer, or one computed from the request (its query and parsed JSON body). */
type Responder = Answer | ((request: { url: URL; body: unknown }) => Answer);

/**
 * Renders a page the way the app does (query client, session, router) against a stubbed API:
 * `responses` maps `METHOD /path` (path without the query) to what the API answers. Component
 * tests only; the browser tests in e2e/ run the real API.
 */
export function renderWithApi(
  ui: ReactNode,
  options: {
    roles?: Role[];
    route?: string;
    responses?: Record<string, Responder>;
    /**
     * Mounts `ui` at this route pattern in a data router (as the app does: useParams, useBlocker
     * work); any other path renders "Elsewhere". Without it, a plain MemoryRouter.
     */
    path?: string;
  } = {},
) {
  const roles = options.roles ?? ['operator'];
  const responses: Record<string, Responder> = {
    'GET /apis/toolgate.dev/v1/whoami': { body: { identity: 'tester', type: 'human', roles } },
    ...options.responses,
  };
  const calls: string[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: URL | string, init?: RequestInit) => {
      const url = new URL(String(input));
      const key = `${init?.method ?? 'GET'} ${url.pathname}`;
      calls.push(`${key}${url.search}`);
      const responder = responses[key];
      const answer =
        typeof responder === 'function'
          ? responder({
              url,
              body: typeof init?.body === 'string' ? (JSON.parse(init.body) as unknown) : undefined,
            })
          : responder;
      if (!answer) {
        return new Response(
          JSON.stringify({
            kind: 'Status',
            code: 404,
            reason: 'NotFound',
            message: `no stub for ${key}`,
          }),
          {
            status: 404,
          },
        );
      }
      return new Response(JSON.stringify(answer.body), {
        status: answer.status ?? 200,
        headers: { 'content-type': 'application/json' },
      });
    }),
  );
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const result = render(
    <QueryClientProvider client={queryClient}>
      <SessionProvider initialToken={TEST_TOKEN}>
        {options.path ? (
          <RouterProvider
            router={createMemoryRouter(
              [
                { path: options.path, element: ui },
                { path: '*', element: <p>Elsewhere</p> },
              ],
              { initialEntries: [options.route ?? '/'] },
            )}
          />
        ) : (
          <MemoryRouter initialEntries={[options.route ?? '/']}>{ui}</MemoryRouter>
        )}
      </SessionProvider>
    </QueryClientProvider>,
  );
  return { ...result, calls, queryClient };
}

export const META = {
  uid: '00000000-0000-4000-8000-000000000001',
  generation: 1,
  resourceVersion: '1',
  creationTimestamp: '2026-01-01T00:00:00Z',
  labels: {},
  annotations: {},
};
