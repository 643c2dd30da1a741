import type { GatewaySyncState, OverviewGateway } from '@toolgate/contract';
import { HashBadge, Pill, type Tone } from '../../../shared/ui/badges.tsx';

export const SYNC_STATE: Record<GatewaySyncState, { label: string; tone: Tone; hint: string }> = {
  in_sync: { label: 'in sync', tone: 'good', hint: 'runs the latest bundle' },
  behind: { label: 'behind', tone: 'warn', hint: 'runs an older bundle than the latest' },
  nack: { label: 'NACK', tone: 'bad', hint: 'refused the latest bundle' },
  stale: { label: 'stale', tone: 'warn', hint: 'no sync for 5 minutes, or never' },
};
const ORDER: GatewaySyncState[] = ['in_sync', 'behind', 'nack', 'stale'];

export function SyncPill(props: { state: GatewaySyncState }) {
  const { label, tone, hint } = SYNC_STATE[props.state];
  return (
    <Pill tone={tone} title={hint}>
      {label}
    </Pill>
  );
}

/** The fleet in four numbers: how many gateways are in sync, behind, NACK and stale. */
export function FleetSummary(props: { gateways: OverviewGateway[] }) {
  const counts = new Map<GatewaySyncState, number>();
  for (const gateway of props.gateways) {
    counts.set(gateway.state, (counts.get(gateway.state) ?? 0) + 1);
  }
  return (
    <ul className="tiles" aria-label="Fleet summary">
      {ORDER.map((state) => (
        <li key={state} className={`tile tile-sync-${state}`}>
          <span className="tile-label">{SYNC_STATE[state].label}</span>
          <span className="tile-value">{counts.get(state) ?? 0}</span>
          <span className="muted">{SYNC_STATE[state].hint}</span>
        </li>
      ))}
    </ul>
  );
}

/** The bundle a gateway runs next to the one the API would serve it now. */
export function BundleCompare(props: { sync: OverviewGateway | undefined; applied?: string }) {
  const applied = props.sync?.appliedBundleETag ?? props.applied ?? null;
  const desired = props.sync?.desiredBundleETag;
  if (!desired) return <HashBadge hash={applied} label="applied bundle" />;
  if (applied === desired) {
    return (
      <span className="bundle-compare">
        <HashBadge hash={applied} label="applied bundle" /> <span className="muted">latest</span>
      </span>
    );
  }
  return (
    <span className="bundle-compare">
      <span>
        <span className="muted">runs </span>
        <HashBadge hash={applied} label="applied bundle" />
      </span>
      <span>
        <span className="muted">latest </span>
        <HashBadge hash={desired} label="latest bundle" />
      </span>
    </span>
  );
}
