import type { Overview } from '@toolgate/contract';
import { lazy, Suspense, useMemo } from 'react';
import { Link, useNavigate } from 'react-router';
import { Loading } from '../../../shared/ui/states.tsx';
import { classLink, type OverviewClass, rangeLink } from './receipt-links.ts';
import type { ChartSeries } from './time-series-chart.tsx';

// uPlot loads with the first chart, after the page's first render (not in the initial bundle).
const TimeSeriesChart = lazy(() => import('./time-series-chart.tsx'));

/** Colours distinguishable in both themes (tokens.css), each class with its own dash too. */
export const CLASS_STYLE: Record<OverviewClass, { label: string; color: string; dash?: number[] }> =
  {
    ok: { label: 'ok', color: 'var(--chart-ok)' },
    blocked: { label: 'blocked', color: 'var(--chart-blocked)', dash: [8, 4] },
    withheld: { label: 'withheld', color: 'var(--chart-withheld)', dash: [2, 3] },
    error: { label: 'error', color: 'var(--chart-error)', dash: [12, 3, 2, 3] },
  };
const CLASSES = Object.keys(CLASS_STYLE) as OverviewClass[];

function bucketEnd(overview: Overview, start: string): string {
  return new Date(
    Math.min(Date.parse(start) + overview.bucketSeconds * 1000, Date.parse(overview.to)),
  ).toISOString();
}

function timeLabel(iso: string): string {
  return new Date(iso).toLocaleString(undefined, {
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
  });
}

/** Requests per bucket by class; a click on a bucket opens its receipts. */
export function RequestsChart(props: { overview: Overview }) {
  const { overview } = props;
  const navigate = useNavigate();
  const times = useMemo(() => overview.requests.map((b) => Date.parse(b.start)), [overview]);
  // Stacked bars: each class is drawn as the sum of itself and the classes below it (ok on
  // top), tallest first, so every class shows as its own band.
  const series = useMemo<ChartSeries[]>(
    () =>
      CLASSES.map((kind, index) => ({
        ...CLASS_STYLE[kind],
        values: overview.requests.map((bucket) =>
          CLASSES.slice(index).reduce((sum, below) => sum + bucket[below], 0),
        ),
      })),
    [overview],
  );
  return (
    <figure className="chart">
      <figcaption>
        <span className="chart-legend">
          {CLASSES.map((kind) => (
            <Link
              key={kind}
              to={classLink(kind, overview.from, overview.to)}
              className="legend-item"
            >
              <span
                className={`legend-swatch legend-${kind}`}
                style={{ borderColor: CLASS_STYLE[kind].color }}
                aria-hidden="true"
              />
              {CLASS_STYLE[kind].label} {overview.totals[kind].toLocaleString()}
            </Link>
          ))}
        </span>
      </figcaption>
      <Suspense fallback={<Loading label="Loading chart…" />}>
        <TimeSeriesChart
          times={times}
          series={series}
          bars
          onBucketClick={(index) => {
            const bucket = overview.requests[index];
            if (bucket) navigate(rangeLink(bucket.start, bucketEnd(overview, bucket.start)));
          }}
        />
      </Suspense>
      <details className="chart-data">
        <summary>Requests per bucket as a table</summary>
        <div className="table-wrap">
          <table className="table">
            <caption className="sr-only">Requests per bucket by outcome</caption>
            <thead>
              <tr>
                <th scope="col">From</th>
                {CLASSES.map((kind) => (
                  <th key={kind} scope="col">
                    {kind}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {overview.requests
                .filter((b) => b.ok + b.blocked + b.withheld + b.error > 0)
                .map((bucket) => (
                  <tr key={bucket.start}>
                    <th scope="row">
                      <Link to={rangeLink(bucket.start, bucketEnd(overview, bucket.start))}>
                        {timeLabel(bucket.start)}
                      </Link>
                    </th>
                    {CLASSES.map((kind) => (
                      <td key={kind}>{bucket[kind].toLocaleString()}</td>
                    ))}
                  </tr>
                ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}

const PERCENTILES = [
  { key: 'p50', color: 'var(--chart-p50)' },
  { key: 'p95', color: 'var(--chart-p95)', dash: [8, 4] },
  { key: 'p99', color: 'var(--chart-p99)', dash: [2, 3] },
] as const;

/** p50/p95/p99 of one latency (mediation or upstream) per bucket with requests. */
export function LatencyChart(props: { overview: Overview; which: 'mediation' | 'upstream' }) {
  const { overview, which } = props;
  const navigate = useNavigate();
  const times = useMemo(() => overview.latency.map((b) => Date.parse(b.start)), [overview]);
  const series = useMemo<ChartSeries[]>(
    () =>
      PERCENTILES.map((p) => ({
        label: p.key,
        color: p.color,
        ...('dash' in p ? { dash: [...p.dash] } : {}),
        values: overview.latency.map((bucket) => round(bucket[which][p.key])),
      })),
    [overview, which],
  );
  const last = overview.latency.at(-1);
  return (
    <figure className="chart">
      <figcaption>
        <span className="chart-legend">
          {PERCENTILES.map((p) => (
            <span key={p.key} className="legend-item">
              <span
                className="legend-swatch"
                style={{ borderColor: p.color, borderStyle: 'dash' in p ? 'dashed' : 'solid' }}
                aria-hidden="true"
              />
              {p.key}
              {last ? ` ${round(last[which][p.key])} ms` : ''}
            </span>
          ))}
        </span>
      </figcaption>
      {overview.latency.length === 0 ? (
        <p className="muted">No requests in this range.</p>
      ) : (
        <Suspense fallback={<Loading label="Loading chart…" />}>
          <TimeSeriesChart
            times={times}
            series={series}
            unit="ms"
            height={180}
            onBucketClick={(index) => {
              const bucket = overview.latency[index];
              if (bucket) navigate(rangeLink(bucket.start, bucketEnd(overview, bucket.start)));
            }}
          />
        </Suspense>
      )}
    </figure>
  );
}

function round(value: number): number {
  return value >= 100 ? Math.round(value) : Math.round(value * 100) / 100;
}
