import { useContext, useEffect, useRef } from 'react';
import { UNSAFE_DataRouterContext, useBlocker } from 'react-router';
import { clearDraft, readDraft, useHasDraft } from '../draft/draft-store.ts';

/**
 * Guards an unsaved draft: closing or reloading the browser tab asks first (beforeunload), and
 * so does leaving the page inside the console. Staying on the page (its tabs, `?tab=…`) is not
 * leaving: the draft is kept for it.
 */
export function UnsavedChangesGuard(props: {
  /** The policy whose draft is guarded (undefined: the new-policy draft). */
  name: string | undefined;
  enabled: boolean;
}) {
  const when = useHasDraft(props.name) && props.enabled;
  useEffect(() => {
    if (!when) return;
    const warn = (event: BeforeUnloadEvent) => {
      event.preventDefault();
      // Older browsers show the prompt only when returnValue is set.
      event.returnValue = '';
    };
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [when]);
  // The in-app prompt needs the data router the console runs in (useBlocker throws outside one).
  const dataRouter = useContext(UNSAFE_DataRouterContext);
  return dataRouter ? <InAppPrompt name={props.name} enabled={props.enabled} /> : null;
}

function InAppPrompt(props: { name: string | undefined; enabled: boolean }) {
  // The store is read when the navigation happens, not at the last render: an apply clears the
  // draft and navigates in one go, before this component sees the draft gone.
  const blocker = useBlocker(
    ({ currentLocation, nextLocation }) =>
      props.enabled &&
      currentLocation.pathname !== nextLocation.pathname &&
      readDraft(props.name) !== undefined,
  );
  const stay = useRef<HTMLButtonElement>(null);
  const blocked = blocker.state === 'blocked';
  useEffect(() => {
    if (blocked) stay.current?.focus();
  }, [blocked]);
  if (!blocked) return null;
  return (
    <div
      className="confirm-panel"
      role="alertdialog"
      aria-modal="true"
      aria-labelledby="unsaved-title"
      aria-describedby="unsaved-text"
      onKeyDown={(event) => {
        if (event.key === 'Escape') blocker.reset();
      }}
    >
      <h2 id="unsaved-title">Unsaved changes</h2>
      <p id="unsaved-text">
        This policy has changes that are not applied. The draft is kept in this browser tab if you
        leave, until you discard it.
      </p>
      <div className="form-actions">
        <button ref={stay} type="button" className="button button-primary" onClick={blocker.reset}>
          Stay on this page
        </button>
        <button type="button" className="button" onClick={blocker.proceed}>
          Leave, keep the draft
        </button>
        <button
          type="button"
          className="button button-quiet"
          onClick={() => {
            clearDraft(props.name);
            blocker.proceed();
          }}
        >
          Discard the draft and leave
        </button>
      </div>
    </div>
  );
}
