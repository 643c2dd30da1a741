import type { GatewayStatusChange, GatewaySyncHistory } from '@toolgate/contract';
import { type Gateway, SPOOL_FULL_CONDITION } from '@toolgate/core';
import { Link, useParams } from 'react-router';
import { HashBadge, Labels, Pill, Time } from '../../../shared/ui/badges.tsx';
import { PageHeader, Section } from '../../../shared/ui/page.tsx';
import { Empty, QueryView } from '../../../shared/ui/states.tsx';
import { useGateway } from '../api/get-gateway.ts';
import { useSyncHistory } from '../api/get-sync-history.ts';
import { BundleCompare, SyncPill } from './sync-state.tsx';

/** One gateway: its sync state, desired vs applied bundle, last errors and status history. */
export function GatewayPage() {
  const name = useParams().name ?? '';
  const gateway = useGateway(name);
  const history = useSyncHistory(name);
  return (
    <QueryView query={gateway} loadingLabel="Loading the gateway…">
      {(data) => (
        <div className="gateway-detail">
          <PageHeader
            title={`Gateway: ${data.metadata.name}`}
            subtitle={
              <>
                <Link to="/gateways">All gateways</Link> · identity {data.spec.identity}
              </>
            }
            actions={
              <Link className="button" to={`/receipts?gateway=${encodeURIComponent(name)}`}>
                Receipts of {name}
              </Link>
            }
          />
          <QueryView query={history} loadingLabel="Loading the sync history…">
            {(sync) => (
              <>
                <GatewayFacts gateway={data} sync={sync} />
                <LastErrors gateway={data} changes={sync.items} />
                <StatusHistory history={sync} />
              </>
            )}
          </QueryView>
        </div>
      )}
    </QueryView>
  );
}

function GatewayFacts(props: { gateway: Gateway; sync: GatewaySyncHistory }) {
  const { status, metadata } = props.gateway;
  const { sync } = props.sync;
  return (
    <dl className="facts">
      <dt>State</dt>
      <dd>
        <SyncPill state={sync.state} />
        {sync.message ? <span className="nack-message">{sync.message}</span> : null}
      </dd>
      <dt>Bundle</dt>
      <dd>
        <BundleCompare sync={sync} />
      </dd>
      <dt>Last sync</dt>
      <dd>
        <Time value={sync.lastSyncTime} />
      </dd>
      <dt>Labels</dt>
      <dd>
        <Labels labels={metadata.labels} />
      </dd>
      <dt>Spool</dt>
      <dd>
        {status?.spoolDepth ?? '—'} waiting
        {status?.spoolDropped ? `, ${status.spoolDropped} dropped` : ''}
      </dd>
      <dt>Quarantined receipts</dt>
      <dd>{status?.receiptQuarantine?.count ?? '—'}</dd>
      <dt>Version</dt>
      <dd>{status?.version ?? '—'}</dd>
    </dl>
  );
}

/** What went wrong lately: refused bundles, a full spool, receipts the API refused. */
function LastErrors(props: { gateway: Gateway; changes: GatewayStatusChange[] }) {
  const nacks = props.changes.filter((change) => change.sync === 'nack').slice(0, 5);
  const status = props.gateway.status;
  const spoolFull = status?.conditions?.find((c) => c.type === SPOOL_FULL_CONDITION);
  const quarantine = status?.receiptQuarantine;
  const none = nacks.length === 0 && spoolFull?.status !== 'True' && !quarantine?.lastReason;
  return (
    <Section title="Last errors">
      {none ? (
        <Empty title="No errors reported">
          No refused bundle, full spool or quarantined receipt in the recorded history.
        </Empty>
      ) : (
        <ul className="gateway-errors">
          {spoolFull?.status === 'True' ? (
            <li>
              <Pill tone="bad">spool full</Pill> since <Time value={spoolFull.lastTransitionTime} />
              : {spoolFull.message || spoolFull.reason}
            </li>
          ) : null}
          {quarantine?.lastReason ? (
            <li>
              <Pill tone="warn">receipt quarantined</Pill> <Time value={quarantine.lastTime} />:{' '}
              {quarantine.lastReason} ({quarantine.count} held; see the{' '}
              <Link to="/gateways">Gateways</Link> page)
            </li>
          ) : null}
          {nacks.map((nack) => (
            <li key={nack.since}>
              <Pill tone="bad">NACK</Pill> <Time value={nack.until} /> {nack.reason}:{' '}
              <span className="nack-message">{nack.message}</span>
            </li>
          ))}
        </ul>
      )}
    </Section>
  );
}

const SYNC_LABEL: Record<
  GatewayStatusChange['sync'],
  { label: string; tone: 'good' | 'bad' | 'neutral' }
> = {
  synced: { label: 'Synced', tone: 'good' },
  nack: { label: 'NACK', tone: 'bad' },
  unknown: { label: 'not reported', tone: 'neutral' },
};

function StatusHistory(props: { history: GatewaySyncHistory }) {
  const { items, complete } = props.history;
  return (
    <Section title="Status history">
      {items.length === 0 ? (
        <Empty title="No status recorded" />
      ) : (
        <div className="table-wrap">
          <table className="table">
            <caption className="sr-only">Status history, newest first</caption>
            <thead>
              <tr>
                <th scope="col">From</th>
                <th scope="col">Until</th>
                <th scope="col">Reports</th>
                <th scope="col">Sync</th>
                <th scope="col">Bundle</th>
                <th scope="col">Detail</th>
              </tr>
            </thead>
            <tbody>
              {items.map((change) => (
                <tr key={change.since} className={change.sync === 'nack' ? 'row-nack' : ''}>
                  <td>
                    <Time value={change.since} />
                  </td>
                  <td>
                    <Time value={change.until} />
                  </td>
                  <td>×{change.reports}</td>
                  <td>
                    <Pill tone={SYNC_LABEL[change.sync].tone}>{SYNC_LABEL[change.sync].label}</Pill>
                  </td>
                  <td>
                    <HashBadge hash={change.appliedBundleETag} label="applied bundle" />
                  </td>
                  <td>
                    {change.message ? (
                      <span className="nack-message">
                        {change.reason}: {change.message}
                      </span>
                    ) : null}
                    {change.spoolFull ? <Pill tone="bad">spool full</Pill> : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {complete ? null : (
        <p className="muted">
          Older reports are not shown: the history is read from the API's change log, which keeps
          the newest changes of all objects.
        </p>
      )}
    </Section>
  );
}
