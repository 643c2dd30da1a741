import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { errorMessage, httpStatusOf, makeApiClient } from '../../../shared/api/api-client.tsx';
import { fetchWhoami, sessionKeys, useSession } from '../../../shared/auth/session.tsx';
import { Field } from '../../../shared/ui/field.tsx';

/** Sign in with an API token; the token is checked against `whoami` before it is kept. */
export function SignInPage() {
  const { signIn } = useSession();
  const navigate = useNavigate();
  const location = useLocation();
  const queryClient = useQueryClient();
  const [token, setToken] = useState('');
  const [error, setError] = useState<string>();
  const [checking, setChecking] = useState(false);
  const from = (location.state as { from?: string } | null)?.from ?? '/';

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
