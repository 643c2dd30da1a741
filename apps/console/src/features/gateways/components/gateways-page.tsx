import type { Gateway } from '@toolgate/core';
import { Link } from 'react-router';
import { Labels, Pill, Time } from '../../../shared/ui/badges.tsx';
import { PageHeader } from '../../../shared/ui/page.tsx';
import { Empty, QueryView } from '../../../shared/ui/states.tsx';
import { useGatewaySync } from '../api/list-gateway-sync.ts';
import { useGateways } from '../api/list-gateways.ts';
import { QuarantineCount, QuarantineSection } from './quarantine-section.tsx';
import { BundleCompare, FleetSummary, SyncPill } from './sync-state.tsx';

/** A gateway that has not synced for this long is flagged stale (its long-poll is far shorter). */
export const STALE_AFTER_MS = 5 * 60_000;

export function isStale(gateway: Gateway, now: number): boolean {
  const last = gateway.status?.lastSyncTime;
  return !last || now - new Date(last).getTime() > STALE_AFTER_MS;
}

export function SyncState({ gateway }: { gateway: Gateway }) {
  const synced = gateway.status?.conditions?.find((c) => c.type === 'Synced');
  if (!synced) return <Pill tone="neutral">never synced</Pill>;
  if (synced.status === 'True') return <Pill tone="good">Synced</Pill>;
  return (
    <span className="nack">
      <Pill tone="bad">NACK</Pill> <span className="muted">{synced.reason}</span>
      <span className="nack-message">{synced.message}</span>
    </span>
  );
}

/**
 * The fleet: a summary (in sync / behind / NACK / stale), then per gateway its labels, the bundle
 * it runs against the latest, Synced / NACK, last seen, spool depth, and the receipts each holds
 * in quarantine. A NACK row is highlighted; a name opens the gateway's page.
 */
export function GatewaysPage() {
  const gateways = useGateways();
  const sync = useGatewaySync();
  const syncOf = new Map((sync.data ?? []).map((entry) => [entry.name, entry]));
  const now = Date.now();
  return (
    <>
      <PageHeader title="Gateways" subtitle="The fleet, as each gateway last reported itself" />
      <QueryView query={gateways} loadingLabel="Loading gateways…">
        {(items) =>
          items.length === 0 ? (
            <Empty title="No gateways registered" />
          ) : (
            <>
              {sync.data ? <FleetSummary gateways={sync.data} /> : null}
              <div className="table-wrap">
                <table className="table">
                  <caption className="sr-only">Gateways</caption>
                  <thead>
                    <tr>
                      <th scope="col">Name</th>
                      <th scope="col">Labels</th>
                      <th scope="col">Bundle (runs / latest)</th>
                      <th scope="col">Sync</th>
                      <th scope="col">Last seen</th>
                      <th scope="col">Spool depth</th>
                      <th scope="col">Quarantined</th>
                      <th scope="col">Version</th>
                    </tr>
                  </thead>
                  <tbody>
                    {items.map((gateway) => {
                      const stale = isStale(gateway, now);
                      const state = syncOf.get(gateway.metadata.name);
                      const nack =
                        gateway.status?.conditions?.find((c) => c.type === 'Synced')?.status ===
                        'False';
                      return (
                        <tr
                          key={gateway.metadata.name}
                          className={nack ? 'row-nack' : stale ? 'row-stale' : ''}
                        >
                          <th scope="row">
                            <Link to={`/gateways/${encodeURIComponent(gateway.metadata.name)}`}>
                              {gateway.metadata.name}
                            </Link>
                            <br />
                            <span className="muted">identity {gateway.spec.identity}</span>
                          </th>
                          <td>
                            <Labels labels={gateway.metadata.labels} />
                          </td>
                          <td>
                            <BundleCompare
                              sync={state}
                              {...(gateway.status?.appliedBundleETag
                                ? { applied: gateway.status.appliedBundleETag }
                                : {})}
                            />
                          </td>
                          <td>
                            {state?.state === 'in_sync' || state?.state === 'behind' ? (
                              <SyncPill state={state.state} />
                            ) : (
                              <SyncState gateway={gateway} />
                            )}
                          </td>
                          <td>
                            <Time value={gateway.status?.lastSyncTime} now={now} />{' '}
                            {stale ? <Pill tone="warn">stale</Pill> : null}
                          </td>
                          <td>{gateway.status?.spoolDepth ?? '—'}</td>
                          <td>
                            <QuarantineCount gateway={gateway} />
                          </td>
                          <td>{gateway.status?.version ?? '—'}</td>
                        </tr>
                      );
                    })}
                  </tbody>
                </table>
              </div>
              <QuarantineSection gateways={items} now={now} />
            </>
          )
        }
      </QueryView>
    </>
  );
}
