import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { errorMessage, httpStatusOf, makeApiClient } from '../../../shared/api/api-client.tsx';
import { safeReturnPath } from '../../../shared/auth/return-to.ts';
import { fetchWhoami, sessionKeys, useSession } from '../../../shared/auth/session.tsx';
import { Field } from '../../../shared/ui/field.tsx';

/**
 * Sign in with an API token; the token is checked against `whoami` before it is kept. Then back
 * to `?next=` (the page one was on, checked to be a path of this console) or the Overview.
 */
export function SignInPage() {
  const { signIn } = useSession();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [token, setToken] = useState('');
  const [error, setError] = useState<string>();
  const [checking, setChecking] = useState(false);
  const [search] = useSearchParams();
  const from = safeReturnPath(search.get('next')) ?? '/';
  const expired = search.get('reason') === 'expired';

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const value = token.trim();
    if (!value) return setError('Enter an API token.');
    setChecking(true);
    setError(undefined);
    try {
      const who = await fetchWhoami(makeApiClient(value));
      queryClient.setQueryData(sessionKeys.whoami(value), who);
      signIn(value);
      void navigate(from, { replace: true });
    } catch (failure) {
      setError(
        httpStatusOf(failure) === 401
          ? 'That token is not valid (unknown, expired or revoked).'
          : errorMessage(failure),
      );
    } finally {
      setChecking(false);
    }
  };

  return (
    <main className="sign-in" id="main">
      <form onSubmit={submit} className="sign-in-card" aria-labelledby="sign-in-title">
        <h1 id="sign-in-title">Toolgate console</h1>
        {expired ? (
          <p className="notice" role="status">
            Your session has ended: the API no longer accepts the token (expired or revoked). Sign
            in again to return to the page you were on.
          </p>
        ) : null}
        <p className="muted">
          Sign in with an API token. Operators edit policies; auditors read history.
        </p>
        <Field
          label="API token"
          error={error}
          hint="pnpm start prints an operator token on first start"
        >
          {(control) => (
            <input
              {...control}
              type="password"
              autoComplete="off"
              spellCheck={false}
              value={token}
              onChange={(e) => setToken(e.target.value)}
            />
          )}
        </Field>
        <button type="submit" className="button button-primary" disabled={checking}>
          {checking ? 'Checking…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
