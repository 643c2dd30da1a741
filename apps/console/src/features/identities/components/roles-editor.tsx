import { type Identity, Role } from '@toolgate/core';
import { type FormEvent, useState } from 'react';
import { errorMessage, fieldErrors, httpStatusOf } from '../../../shared/api/api-client.tsx';
import { useReplaceIdentityRoles } from '../api/replace-identity-roles.ts';

/**
 * Edits an identity's roles in place. The API's own validation decides (at least one role, the
 * gateway role only for services); its messages are shown as they come. A concurrent change is
 * a 409: the list reloads and the operator sees the roles as they now are.
 */
export function RolesEditor(props: { identity: Identity; onDone: () => void }) {
  const { identity } = props;
  const name = identity.metadata.name;
  const replace = useReplaceIdentityRoles();
  const [roles, setRoles] = useState<Role[]>(identity.spec.roles);
  const invalid = fieldErrors(replace.error)
    .map((e) => e.message)
    .join('; ');
  const conflict = httpStatusOf(replace.error) === 409;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    replace.mutate({ identity, roles }, { onSuccess: props.onDone });
  };
  return (
    <form className="roles-editor" onSubmit={submit} aria-label={`Roles of ${name}`}>
      <fieldset className="radio-row">
        <legend className="sr-only">Roles of {name}</legend>
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
      </fieldset>
      {roles.length === 0 ? <p className="field-error">Choose at least one role.</p> : null}
      <button
        type="submit"
        className="button button-primary"
        disabled={replace.isPending || roles.length === 0}
      >
        Save roles
      </button>
      <button type="button" className="button button-quiet" onClick={props.onDone}>
        Cancel
      </button>
      {replace.error ? (
        <p className="field-error" role="alert">
          {conflict
            ? `${name} was changed meanwhile; its current roles are shown, edit them again.`
            : invalid || errorMessage(replace.error)}
        </p>
      ) : null}
    </form>
  );
}
