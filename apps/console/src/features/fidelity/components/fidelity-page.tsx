import {
  type CapabilityContract,
  Fidelity,
  type ProviderCapability,
  type ProviderProfile,
} from '@toolgate/core';
import { useMemo } from 'react';
import { Link } from 'react-router';
import { useUrlState } from '../../../shared/lib/search-params.ts';
import { PageHeader, Section } from '../../../shared/ui/page.tsx';
import { Empty, ErrorState, Loading } from '../../../shared/ui/states.tsx';
import { useContracts } from '../api/list-contracts.ts';
import { useProfiles } from '../api/list-profiles.ts';

const DESCRIPTIONS: Record<Fidelity, string> = {
  pass_through: 'the call and its result cross the wire unchanged and are fully observable',
  normalized: 'observable, mapped onto the contract with no loss that matters',
  emulated: 'Toolgate runs the capability itself to the contract',
  provider_attested: 'only the provider’s own report of what it did',
  opaque: 'nothing observable: no proof either way',
};

/**
 * Each level's name, and a mark that tells it apart without colour (the cells also differ by
 * border style): strongest first.
 */
export const FIDELITY_LABEL: Record<Fidelity, { label: string; mark: string }> = {
  pass_through: { label: 'Pass-through', mark: '●●' },
  normalized: { label: 'Normalized', mark: '●○' },
  emulated: { label: 'Emulated', mark: '◆' },
  provider_attested: { label: 'Provider-attested', mark: '△' },
  opaque: { label: 'Opaque', mark: '?' },
};

function FidelityName(props: { fidelity: Fidelity }) {
  const { label, mark } = FIDELITY_LABEL[props.fidelity];
  return (
    <>
      <span className="fidelity-mark" aria-hidden="true">
        {mark}
      </span>{' '}
      {label}
    </>
  );
}

const KEYS = ['contract', 'profile'] as const;

/**
 * The receipts list of one cell: receipts holding evidence of the contract (a hosted tool of it
 * offered, or a hosted tool event of it) that came in on the profile's surface.
 */
export function receiptsUsingHref(profile: ProviderProfile, contract: CapabilityContract): string {
  const query = new URLSearchParams({ contract: contract.spec.id, surface: profile.spec.surface });
  return `/receipts?${query.toString()}`;
}

/** Capability contract × provider profile: what Toolgate can prove per cell, with gaps on click. */
export function FidelityPage() {
  const contracts = useContracts();
  const profiles = useProfiles();
  const [selected, setSelected] = useUrlState(KEYS);

  const cell = useMemo(() => {
    const profile = profiles.data?.find((p) => p.metadata.name === selected.profile);
    const contract = contracts.data?.find((c) => c.metadata.name === selected.contract);
    if (!profile || !contract) return undefined;
    return {
      profile,
      contract,
      capability: profile.spec.capabilities.find((c) => c.contract === contract.spec.id),
    };
  }, [profiles.data, contracts.data, selected]);

  return (
    <>
      <PageHeader
        title="Fidelity"
        subtitle="What Toolgate can prove about each provider-hosted capability"
      />
      <Legend />
      {contracts.isPending || profiles.isPending ? (
        <Loading label="Loading contracts and profiles…" />
      ) : contracts.error || profiles.error ? (
        <ErrorState
          error={contracts.error ?? profiles.error}
          retry={() => {
            void contracts.refetch();
            void profiles.refetch();
          }}
        />
      ) : contracts.data.length === 0 || profiles.data.length === 0 ? (
        <Empty title="No capability contracts or provider profiles" />
      ) : (
        <div className="table-wrap">
          <table className="table matrix">
            <caption className="sr-only">
              Fidelity by capability contract and provider profile
            </caption>
            <thead>
              <tr>
                <th scope="col">Capability contract</th>
                {profiles.data.map((p) => (
                  <th scope="col" key={p.metadata.name}>
                    {p.spec.displayName}
                    <br />
                    <code className="muted">{p.spec.surface}</code>
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {contracts.data.map((contract) => (
                <tr key={contract.metadata.name}>
                  <th scope="row" title={contract.spec.id}>
                    {contract.spec.title}
                    <br />
                    <code className="muted">
                      <span className="sr-only">contract id </span>
                      {contract.spec.id}
                    </code>
                  </th>
                  {profiles.data.map((profile) => {
                    const capability = profile.spec.capabilities.find(
                      (c) => c.contract === contract.spec.id,
                    );
                    const fidelity: Fidelity = capability?.fidelity ?? 'opaque';
                    const active =
                      selected.contract === contract.metadata.name &&
                      selected.profile === profile.metadata.name;
                    return (
                      <td key={profile.metadata.name}>
                        <button
                          type="button"
                          className={`fidelity-cell fidelity-${fidelity}${active ? ' active' : ''}`}
                          aria-pressed={active}
                          onClick={() =>
                            setSelected(
                              active
                                ? { contract: undefined, profile: undefined }
                                : {
                                    contract: contract.metadata.name,
                                    profile: profile.metadata.name,
                                  },
                            )
                          }
                        >
                          <span className="sr-only">
                            {contract.spec.title} on {profile.spec.displayName}:{' '}
                          </span>
                          <span>
                            <FidelityName fidelity={fidelity} />
                          </span>
                          {capability ? (
                            <span className="gap-count">{capability.gaps.length} gaps</span>
                          ) : (
                            <span className="gap-count">not offered</span>
                          )}
                        </button>
                      </td>
                    );
                  })}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {cell ? (
        <CellDetails {...cell} />
      ) : (
        <p className="muted">Select a cell to see its proofs and gaps.</p>
      )}
    </>
  );
}

function Legend() {
  return (
    <ul className="legend" aria-label="Fidelity levels, strongest first">
      {Fidelity.options.map((f) => (
        <li key={f}>
          <span className={`swatch fidelity-${f}`} aria-hidden="true">
            {FIDELITY_LABEL[f].mark}
          </span>{' '}
          <strong>{FIDELITY_LABEL[f].label}</strong> <code className="muted">{f}</code>:{' '}
          {DESCRIPTIONS[f]}
        </li>
      ))}
    </ul>
  );
}

function CellDetails(props: {
  profile: ProviderProfile;
  contract: CapabilityContract;
  capability: ProviderCapability | undefined;
}) {
  const { profile, contract, capability } = props;
  return (
    <Section title={`${contract.spec.title} on ${profile.spec.displayName}`}>
      <p className="muted">
        Contract <code>{contract.spec.id}</code> · profile <code>{profile.metadata.name}</code> (
        <code>{profile.spec.surface}</code>) ·{' '}
        <Link
          to={receiptsUsingHref(profile, contract)}
          aria-label={`Receipts using this: ${contract.spec.title} on ${profile.spec.displayName}`}
        >
          Receipts using this
        </Link>
      </p>
      {!capability ? (
        <Empty title="Not offered">
          {profile.spec.displayName} declares nothing for {contract.spec.title} (
          <code>{contract.spec.id}</code>): nothing about it can be proven.
        </Empty>
      ) : (
        <div className="two-columns">
          <div>
            <h3>Proofs: what is observable</h3>
            <dl className="facts">
              <dt>Fidelity</dt>
              <dd>
                <span className={`pill fidelity-${capability.fidelity}`}>
                  <FidelityName fidelity={capability.fidelity} />
                </span>
              </dd>
              <dt>Native types</dt>
              <dd>
                {capability.nativeTypes.length
                  ? capability.nativeTypes.map((t) => <code key={t}>{t} </code>)
                  : 'none'}
              </dd>
              <dt>Request</dt>
              <dd>{capability.requestSchema}</dd>
              <dt>Returned events</dt>
              <dd>{capability.eventShape}</dd>
              <dt>Citations</dt>
              <dd>{capability.citations}</dd>
            </dl>
          </div>
          <div>
            <h3>Gaps ({capability.gaps.length})</h3>
            {capability.gaps.length === 0 ? (
              <p className="muted">None declared.</p>
            ) : (
              <ul className="gaps">
                {capability.gaps.map((gap) => (
                  <li key={gap}>{gap}</li>
                ))}
              </ul>
            )}
            <dl className="facts">
              <dt>Approval</dt>
              <dd>{capability.approval}</dd>
              <dt>Replay</dt>
              <dd>{capability.replay}</dd>
              <dt>Privacy</dt>
              <dd>{capability.privacy}</dd>
            </dl>
          </div>
        </div>
      )}
    </Section>
  );
}
