import { queryOptions, useQuery, useQueryClient } from '@tanstack/react-query';
import { type ApiClient, ROUTE_INDEX, type RouteName } from '@toolgate/contract';
import type { Role } from '@toolgate/core';
import {
  createContext,
  type ReactNode,
  useCallback,
  useContext,
  useMemo,
  useRef,
  useState,
} from 'react';
import { ApiClientProvider, makeApiClient } from '../api/api-client.tsx';

/** Kept per browser tab: closing the tab signs out, and other sites never see it. */
const TOKEN_KEY = 'toolgate.token';

export interface Who {
  identity: string;
  type: string;
  roles: Role[];
}

export const sessionKeys = {
  all: ['session'] as const,
  whoami: (token: string) => [...sessionKeys.all, 'whoami', token.slice(-8)] as const,
};

export function fetchWhoami(client: ApiClient, signal?: AbortSignal): Promise<Who> {
  return client.call('tokens.whoami', signal ? { signal } : {});
}

export function whoamiQueryOptions(client: ApiClient, token: string) {
  return queryOptions({
    queryKey: sessionKeys.whoami(token),
    queryFn: ({ signal }) => fetchWhoami(client, signal),
    staleTime: 5 * 60_000,
    retry: false,
  });
}

interface Session {
  token: string | undefined;
  client: ApiClient;
  /**
   * Why there is no token: `signedOut` (the user's choice: sign-in starts afresh) or `expired`
   * (the API answered 401: sign-in returns to the page one was on). Undefined while signed in
   * or before the first sign-in.
   */
  ended: 'signedOut' | 'expired' | undefined;
  signIn(token: string): void;
  signOut(): void;
}

const SessionContext = createContext<Session | null>(null);

function readToken(): string | undefined {
  try {
    return sessionStorage.getItem(TOKEN_KEY) ?? undefined;
  } catch {
    return undefined;
  }
}

export function SessionProvider(props: { children: ReactNode; initialToken?: string }) {
  const [token, setToken] = useState<string | undefined>(() => props.initialToken ?? readToken());
  const [ended, setEnded] = useState<Session['ended']>();
  const queryClient = useQueryClient();
  const end = useCallback(
    (reason: NonNullable<Session['ended']>) => {
      sessionStorage.removeItem(TOKEN_KEY);
      setToken(undefined);
      setEnded(reason);
      queryClient.clear();
    },
    [queryClient],
  );
  // A 401 to any call ends the session, but only if it was made with the token still in use: a
  // late answer to a previous token must not sign out the next one.
  const current = useRef(token);
  current.current = token;
  const client = useMemo(
    () =>
      makeApiClient(token, window.location.origin, () => {
        if (current.current === token) end('expired');
      }),
    [token, end],
  );
  const signIn = useCallback((next: string) => {
    sessionStorage.setItem(TOKEN_KEY, next);
    setToken(next);
    setEnded(undefined);
  }, []);
  const signOut = useCallback(() => end('signedOut'), [end]);
  const value = useMemo(
    () => ({ token, client, ended, signIn, signOut }),
    [token, client, ended, signIn, signOut],
  );
  return (
    <SessionContext value={value}>
      <ApiClientProvider client={client}>{props.children}</ApiClientProvider>
    </SessionContext>
  );
}

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside SessionProvider');
  return session;
}

/** Who the signed-in token belongs to (undefined while loading or signed out). */
export function useWhoami() {
  const { client, token } = useSession();
  return useQuery({ ...whoamiQueryOptions(client, token ?? ''), enabled: token !== undefined });
}

/** Whether roles may call a route, by the route's own access rule (the API enforces the same). */
export function canCall(roles: ReadonlyArray<Role>, route: RouteName): boolean {
  const access = ROUTE_INDEX[route].access;
  if ('anonymous' in access) return true;
  return access.roles.some((role) => roles.includes(role));
}

/** Whether the signed-in identity may call `route`: write controls render only when it may. */
export function useCan(route: RouteName): boolean {
  const { data } = useWhoami();
  return data ? canCall(data.roles, route) : false;
}
