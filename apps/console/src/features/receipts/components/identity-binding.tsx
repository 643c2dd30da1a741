import type { Receipt } from '@toolgate/core';
import { Pill } from '../../../shared/ui/badges.tsx';

type Binding = Receipt['identity']['binding'];

/** What each binding means to an auditor: only `verified` is proof of who called. */
const BINDING_MEANING: Record<Binding, { tone: 'good' | 'warn' | 'bad'; title: string }> = {
  verified: { tone: 'good', title: "proven by the agent's Toolgate token" },
  claimed: {
    tone: 'warn',
    title: 'named by request headers only (known agent identities); not proven',
  },
  unverified: {
    tone: 'warn',
    title: 'not proven: unknown names, no names, or a token that proved nothing',
  },
  rejected: { tone: 'bad', title: 'not proven, and refused by policy' },
};

function names(identity: { human?: string; service?: string; session?: string }): string {
  return [
    identity.human && `human ${identity.human}`,
    identity.service && `service ${identity.service}`,
    identity.session && `session ${identity.session}`,
  ]
    .filter(Boolean)
    .join(' · ');
}

/** The bound identity with its binding, and the headers' claims when a token overrode them. */
export function IdentityBinding(props: { identity: Receipt['identity'] }) {
  const { identity } = props;
  const meaning = BINDING_MEANING[identity.binding];
  return (
    <>
      {names(identity) || 'anonymous'}{' '}
      <Pill tone={meaning.tone} title={meaning.title}>
        {identity.binding}
      </Pill>
      {identity.claims ? (
        <span className="muted"> (headers claimed {names(identity.claims) || 'nothing'})</span>
      ) : null}
    </>
  );
}
