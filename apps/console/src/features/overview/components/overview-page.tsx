import type { Overview, OverviewGateway } from '@toolgate/contract';
import { useEffect, useMemo, useState } from 'react';
import { Link } from 'react-router';
import { useUrlState } from '../../../shared/lib/search-params.ts';
import { HashBadge, Pill, Time, type Tone } from '../../../shared/ui/badges.tsx';
import { PageHeader, Section } from '../../../shared/ui/page.tsx';
import { Empty, ErrorState, Loading } from '../../../shared/ui/states.tsx';
import { useOverview } from '../api/get-overview.ts';
import { BarList } from './bar-list.tsx';
import { CLASS_STYLE, LatencyChart, RequestsChart } from './overview-charts.tsx';
import { classLink, gatewayLink, type OverviewClass, ruleLink, toolLink } from './receipt-links.ts';
import { rangeChoice, resolveRange } from './time-range.ts';
import { TimeRangePicker } from './time-range-picker.tsx';

const RANGE_KEYS = ['range', 'from', 'to'] as const;

/** The current minute (epoch minutes), moving on by itself: presets end now and follow it. */
function useCurrentMinute(): number {
  const [minute, setMinute] = useState(() => Math.floor(Date.now() / 60_000));
  useEffect(() => {
    const timer = setInterval(() => setMinute(Math.floor(Date.now() / 60_000)), 10_000);
    return () => clearInterval(timer);
  }, []);
  return minute;
}

/** The landing page: the fleet's traffic, enforcement and sync state at a glance. */
export function OverviewPage() {
  const [values, setValues] = useUrlState(RANGE_KEYS);
  const choice = useMemo(() => rangeChoice(values), [values]);
  const minute = useCurrentMinute();
  const request = useMemo(() => resolveRange(choice, minute * 60_000), [choice, minute]);
  const overview = useOverview(request);

  return (
    <>
      <PageHeader title="Overview" subtitle="Requests, enforcement and the fleet's sync state" />
      <TimeRangePicker
        key={choice.kind === 'custom' ? `${choice.from}-${choice.to}` : choice.preset}
        choice={choice}
        onChange={(next) => setValues({ range: next.range, from: next.from, to: next.to })}
      />
      {overview.isPending ? (
        <Loading label="Loading the overview…" />
      ) : overview.error || !overview.data ? (
        <ErrorState
          title="The overview failed to load"
          error={overview.error}
          retry={() => void overview.refetch()}
        />
      ) : (
        <OverviewBody overview={overview.data} refreshing={overview.isFetching} />
      )}
    </>
  );
}

function OverviewBody(props: { overview: Overview; refreshing: boolean }) {
  const { overview } = props;
  const { from, to } = overview;
  const noTraffic = overview.totals.requests === 0;
  return (
    <div className="overview" aria-busy={props.refreshing}>
      <ul className="tiles" aria-label="Totals">
        <li className="tile">
          <span className="tile-label">Requests</span>
          <Link className="tile-value" to={`/receipts?since=${from}&until=${to}`}>
            {overview.totals.requests.toLocaleString()}
          </Link>
        </li>
        {(['blocked', 'withheld', 'error'] as OverviewClass[]).map((kind) => (
          <li key={kind} className={`tile tile-${kind}`}>
            <span className="tile-label">{CLASS_STYLE[kind].label}</span>
            <Link className="tile-value" to={classLink(kind, from, to)}>
              {overview.totals[kind].toLocaleString()}
            </Link>
          </li>
        ))}
        <li className="tile">
          <span className="tile-label">Pending approvals</span>
          <Link className="tile-value" to="/approvals?state=pending">
            {overview.pendingApprovals.toLocaleString()}
          </Link>
        </li>
      </ul>
      {noTraffic ? (
        <Empty title="No traffic in this range">
          No gateway sent a receipt between {new Date(from).toLocaleString()} and{' '}
          {new Date(to).toLocaleString()}. Try a wider range, or send an agent's requests through a
          gateway (<code>pnpm demo</code> does, against <code>pnpm start</code>).
        </Empty>
      ) : (
        <div className="overview-grid">
          <Section title="Requests over time by outcome">
            <RequestsChart overview={overview} />
          </Section>
          <Section title="Mediation latency">
            <LatencyChart overview={overview} which="mediation" />
          </Section>
          <Section title="Upstream latency">
            <LatencyChart overview={overview} which="upstream" />
          </Section>
          <Section title="Blocked and withheld calls by rule">
            {overview.byRule.length === 0 ? (
              <p className="muted">No call was blocked or withheld.</p>
            ) : (
              <BarList
                label="Blocked and withheld calls by rule"
                items={overview.byRule.map((row) => ({
                  key: row.rule,
                  label: row.rule,
                  href: ruleLink(row.rule, from, to),
                  parts: [
                    { label: 'blocked', value: row.blocked, className: 'bar-blocked' },
                    { label: 'withheld', value: row.withheld, className: 'bar-withheld' },
                  ],
                }))}
              />
            )}
          </Section>
          <Section title="Top tools called">
            {overview.topTools.length === 0 ? (
              <p className="muted">No tool was called.</p>
            ) : (
              <BarList
                label="Top tools called"
                items={overview.topTools.map((row) => ({
                  key: row.tool,
                  label: row.tool,
                  href: toolLink(row.tool, from, to),
                  parts: [{ label: 'calls', value: row.calls, className: 'bar-calls' }],
                }))}
              />
            )}
          </Section>
        </div>
      )}
      <Section title="Gateway sync">
        <GatewaySyncTable gateways={overview.gateways} from={from} to={to} />
      </Section>
    </div>
  );
}

const SYNC: Record<OverviewGateway['state'], { label: string; tone: Tone }> = {
  in_sync: { label: 'in sync', tone: 'good' },
  behind: { label: 'behind', tone: 'warn' },
  nack: { label: 'NACK', tone: 'bad' },
  stale: { label: 'stale', tone: 'warn' },
};

export function GatewaySyncTable(props: { gateways: OverviewGateway[]; from: string; to: string }) {
  if (props.gateways.length === 0) {
    return (
      <Empty title="No gateways registered">
        Register one on the <Link to="/gateways">Gateways</Link> page.
      </Empty>
    );
  }
  const now = Date.now();
  return (
    <div className="table-wrap">
      <table className="table">
        <caption className="sr-only">Gateway sync state</caption>
        <thead>
          <tr>
            <th scope="col">Gateway</th>
            <th scope="col">State</th>
            <th scope="col">Runs</th>
            <th scope="col">Latest</th>
            <th scope="col">Last sync</th>
          </tr>
        </thead>
        <tbody>
          {props.gateways.map((gateway) => (
            <tr key={gateway.name} className={gateway.state === 'nack' ? 'row-nack' : ''}>
              <th scope="row">
                <Link to={gatewayLink(gateway.name, props.from, props.to)}>{gateway.name}</Link>
              </th>
              <td>
                <Pill tone={SYNC[gateway.state].tone}>{SYNC[gateway.state].label}</Pill>
                {gateway.message ? <div className="muted">{gateway.message}</div> : null}
              </td>
              <td>
                <HashBadge hash={gateway.appliedBundleETag} label="applied bundle" />
              </td>
              <td>
                <HashBadge hash={gateway.desiredBundleETag} label="latest bundle" />
              </td>
              <td>
                {gateway.lastSyncTime ? (
                  <Time value={gateway.lastSyncTime} now={now} />
                ) : (
                  <span className="muted">never</span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
