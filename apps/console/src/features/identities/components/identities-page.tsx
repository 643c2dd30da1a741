import { type Identity, Role } from '@toolgate/core';
import { type FormEvent, useState } from 'react';
import { errorMessage, fieldErrors } from '../../../shared/api/api-client.tsx';
import { useCan } from '../../../shared/auth/session.tsx';
import { Pill, Time } from '../../../shared/ui/badges.tsx';
import { CopyButton } from '../../../shared/ui/copy-button.tsx';
import { Field } from '../../../shared/ui/field.tsx';
import { PageHeader, Section } from '../../../shared/ui/page.tsx';
import { Empty, QueryView } from '../../../shared/ui/states.tsx';
import { useCreateIdentity } from '../api/create-identity.ts';
import { useDeleteIdentity } from '../api/delete-identity.ts';
import { useIssueToken } from '../api/issue-token.ts';
import { useIdentities } from '../api/list-identities.ts';
import { useTokens } from '../api/list-tokens.ts';
import { useRevokeToken } from '../api/revoke-token.ts';
import { RolesEditor } from './roles-editor.tsx';

export function IdentitiesPage() {
  const identities = useIdentities();
  const canCreate = useCan('identities.create');
  const [open, setOpen] = useState<string>();
  return (
    <>
      <PageHeader title="Identities" subtitle="People and services, their roles and API tokens" />
      {canCreate ? <CreateIdentityForm /> : null}
      <QueryView query={identities} loadingLabel="Loading identities…">
        {(items) =>
          items.length === 0 ? (
            <Empty title="No identities" />
          ) : (
            <div className="table-wrap">
              <table className="table">
                <caption className="sr-only">Identities</caption>
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Type</th>
                    <th scope="col">Roles</th>
                    <th scope="col">Active tokens</th>
                    <th scope="col">Last used</th>
                    <th scope="col">
                      <span className="sr-only">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {items.map((identity) => (
                    <IdentityRow
                      key={identity.metadata.name}
                      identity={identity}
                      open={open === identity.metadata.name}
                      toggle={() =>
                        setOpen(
                          open === identity.metadata.name ? undefined : identity.metadata.name,
                        )
                      }
                    />
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </QueryView>
    </>
  );
}

function IdentityRow(props: { identity: Identity; open: boolean; toggle: () => void }) {
  const { identity } = props;
  const name = identity.metadata.name;
  const canEdit = useCan('identities.replace');
  const canDelete = useCan('identities.delete');
  const remove = useDeleteIdentity();
  const [editing, setEditing] = useState(false);
  const active = identity.status?.tokens?.active ?? 0;
  const confirmDelete = () => {
    const tokens = active === 1 ? '1 active token stops' : `${active} active tokens stop`;
    if (window.confirm(`Delete identity ${name}? Its ${tokens} working at once.`)) {
      remove.mutate(name);
    }
  };
  return (
    <>
      <tr>
        <th scope="row">
          {name}
          {identity.spec.displayName ? (
            <span className="muted"> · {identity.spec.displayName}</span>
          ) : null}
        </th>
        <td>{identity.spec.type}</td>
        <td>
          {editing ? (
            <RolesEditor identity={identity} onDone={() => setEditing(false)} />
          ) : (
            <>
              {identity.spec.roles.map((role) => (
                <Pill key={role} tone={role === 'operator' ? 'info' : 'neutral'}>
                  {role}
                </Pill>
              ))}
              {canEdit ? (
                <button
                  type="button"
                  className="button button-quiet"
                  onClick={() => setEditing(true)}
                >
                  Edit roles<span className="sr-only"> of {name}</span>
                </button>
              ) : null}
            </>
          )}
        </td>
        <td>{active}</td>
        <td>
          <Time value={identity.status?.tokens?.lastUsedTime} />
        </td>
        <td>
          <button
            type="button"
            className="button button-quiet"
            aria-expanded={props.open}
            onClick={props.toggle}
          >
            {props.open ? 'Hide tokens' : 'Tokens'}
            <span className="sr-only"> of {name}</span>
          </button>
          {canDelete ? (
            <button
              type="button"
              className="button button-quiet"
              disabled={remove.isPending}
              onClick={confirmDelete}
            >
              Delete<span className="sr-only"> identity {name}</span>
            </button>
          ) : null}
          {remove.error ? (
            <p className="field-error" role="alert">
              {errorMessage(remove.error)}
            </p>
          ) : null}
        </td>
      </tr>
      {props.open ? (
        <tr className="row-detail">
          <td colSpan={6}>
            <TokensPanel name={name} />
          </td>
        </tr>
      ) : null}
    </>
  );
}

function TokensPanel(props: { name: string }) {
  const tokens = useTokens(props.name);
  const issue = useIssueToken(props.name);
  const revoke = useRevokeToken(props.name);
  const canIssue = useCan('tokens.issueToken');
  const canRevoke = useCan('tokens.revokeToken');
  const [description, setDescription] = useState('');
  const [ttlDays, setTtlDays] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const days = Number(ttlDays);
    issue.mutate({
      ...(description ? { description } : {}),
      ...(ttlDays && days > 0 ? { ttlSeconds: Math.round(days * 86400) } : {}),
    });
  };
  return (
    <div className="tokens-panel">
      {issue.data ? (
        <div className="secret" role="alert">
          <strong>New token for {props.name}: copy it now, it is shown only once.</strong>
          <span className="sr-only">New token: </span>
          <code className="secret-value">{issue.data.token}</code>
          <CopyButton text={issue.data.token} label="Copy" />
          <button type="button" className="button button-quiet" onClick={() => issue.reset()}>
            Done
          </button>
        </div>
      ) : null}
      <QueryView query={tokens} loadingLabel="Loading tokens…">
        {(items) =>
          items.length === 0 ? (
            <p className="muted">No tokens.</p>
          ) : (
            <table className="table">
              <caption className="sr-only">Tokens of {props.name}</caption>
              <thead>
                <tr>
                  <th scope="col">Id</th>
                  <th scope="col">Description</th>
                  <th scope="col">Created</th>
                  <th scope="col">Expires</th>
                  <th scope="col">Last used</th>
                  <th scope="col">State</th>
                </tr>
              </thead>
              <tbody>
                {items.map((token) => (
                  <tr key={token.id}>
                    <th scope="row">
                      <code>{token.id}</code>
                    </th>
                    <td>{token.description || '—'}</td>
                    <td>
                      <Time value={token.createdAt} />
                    </td>
                    <td>{token.expiresAt ? <Time value={token.expiresAt} /> : 'never'}</td>
                    <td>
                      <Time value={token.lastUsedAt} />
                    </td>
                    <td>
                      {token.revokedAt ? (
                        <Pill tone="bad">revoked</Pill>
                      ) : canRevoke ? (
                        <button
                          type="button"
                          className="button button-quiet"
                          disabled={revoke.isPending}
                          onClick={() => {
                            if (
                              window.confirm(`Revoke token ${token.id}? It stops working at once.`)
                            )
                              revoke.mutate(token.id);
                          }}
                        >
                          Revoke<span className="sr-only"> token {token.id}</span>
                        </button>
                      ) : (
                        <Pill tone="good">active</Pill>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </QueryView>
      {revoke.error ? (
        <p className="field-error" role="alert">
          {errorMessage(revoke.error)}
        </p>
      ) : null}
      {canIssue ? (
        <form
          className="inline-form"
          onSubmit={submit}
          aria-label={`Issue a token for ${props.name}`}
        >
          <Field label="Description">
            {(control) => (
              <input
                {...control}
                value={description}
                onChange={(e) => setDescription(e.target.value)}
              />
            )}
          </Field>
          <Field label="Expires after (days)" hint="empty: never">
            {(control) => (
              <input
                {...control}
                inputMode="numeric"
                value={ttlDays}
                onChange={(e) => setTtlDays(e.target.value)}
              />
            )}
          </Field>
          <button type="submit" className="button button-primary" disabled={issue.isPending}>
            Issue token
          </button>
          {issue.error ? (
            <p className="field-error" role="alert">
              {errorMessage(issue.error)}
            </p>
          ) : null}
        </form>
      ) : null}
    </div>
  );
}

function CreateIdentityForm() {
  const create = useCreateIdentity();
  const [name, setName] = useState('');
  const [type, setType] = useState<'human' | 'service'>('human');
  const [roles, setRoles] = useState<Role[]>(['auditor']);
  const errors = fieldErrors(create.error);
  const errorAt = (prefix: string) =>
    errors
      .filter((e) => e.field.startsWith(prefix))
      .map((e) => e.message)
      .join('; ') || undefined;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(
      { name, spec: { type, roles } },
      {
        onSuccess: () => {
          setName('');
        },
      },
    );
  };
  return (
    <Section title="Create an identity">
      <form className="inline-form" onSubmit={submit} aria-label="Create an identity">
        <Field label="Name" error={errorAt('metadata.name')}>
          {(control) => (
            <input {...control} value={name} required onChange={(e) => setName(e.target.value)} />
          )}
        </Field>
        <Field label="Type" error={errorAt('spec.type')}>
          {(control) => (
            <select
              {...control}
              value={type}
              onChange={(e) => setType(e.target.value as 'human' | 'service')}
            >
              <option value="human">human</option>
              <option value="service">service</option>
            </select>
          )}
        </Field>
        <fieldset className="radio-row">
          <legend>Roles</legend>
          {Role.options.map((role) => (
            <label key={role} className="checkbox">
              <input
                type="checkbox"
                checked={roles.includes(role)}
                onChange={(e) =>
                  setRoles(e.target.checked ? [...roles, role] : roles.filter((r) => r !== role))
                }
              />{' '}
              {role}
            </label>
          ))}
          {errorAt('spec.roles') ? <p className="field-error">{errorAt('spec.roles')}</p> : null}
        </fieldset>
        <button type="submit" className="button button-primary" disabled={create.isPending}>
          Create identity
        </button>
        {create.error && errors.length === 0 ? (
          <p className="field-error" role="alert">
            {errorMessage(create.error)}
          </p>
        ) : null}
        {create.isSuccess ? (
          <p role="status">Created {create.data.metadata.name}. Issue it a token below.</p>
        ) : null}
      </form>
    </Section>
  );
}
