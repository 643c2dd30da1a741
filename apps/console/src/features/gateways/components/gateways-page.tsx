import type { Gateway } from '@toolgate/core';
import { Link } from 'react-router';
import { HashBadge, Labels, Pill, Time } from '../../../shared/ui/badges.tsx';
import { PageHeader } from '../../../shared/ui/page.tsx';
import { Empty, QueryView } from '../../../shared/ui/states.tsx';
import { useGateways } from '../api/list-gateways.ts';
import { QuarantineCount, QuarantineSection } from './quarantine-section.tsx';

/** A gateway that has not synced for this long is flagged stale (its long-poll is far shorter). */
export const STALE_AFTER_MS = 5 * 60_000;

export function isStale(gateway: Gateway, now: number): boolean {
  const last = gateway.status?.lastSyncTime;
  return !last || now - new Date(last).getTime() > STALE_AFTER_MS;
}

function SyncState({ gateway }: { gateway: Gateway }) {
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
 * The fleet: labels, the bundle each gateway runs, Synced / NACK, last seen, spool depth, and
 * the receipts each holds in quarantine.
 */
export function GatewaysPage() {
  const gateways = useGateways();
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
              <div className="table-wrap">
                <table className="table">
                  <caption className="sr-only">Gateways</caption>
                  <thead>
                    <tr>
                      <th scope="col">Name</th>
                      <th scope="col">Labels</th>
                      <th scope="col">Bundle</th>
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
                      return (
                        <tr key={gateway.metadata.name} className={stale ? 'row-stale' : ''}>
                          <th scope="row">
                            <Link
                              to={`/receipts?gateway=${encodeURIComponent(gateway.metadata.name)}`}
                            >
                              {gateway.metadata.name}
                            </Link>
                            <br />
                            <span className="muted">identity {gateway.spec.identity}</span>
                          </th>
                          <td>
                            <Labels labels={gateway.metadata.labels} />
                          </td>
                          <td>
                            <HashBadge hash={gateway.status?.appliedBundleETag} label="bundle" />
                          </td>
                          <td>
                            <SyncState gateway={gateway} />
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
