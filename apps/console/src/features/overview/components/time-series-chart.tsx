import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { resolveCssColor, useColorSchemeVersion } from '../../../shared/theme/css-colors.ts';

export interface ChartSeries {
  label: string;
  /**
   * A CSS colour (a `var(--chart-…)` token: resolved for the theme in force, and redrawn when it
   * changes); each series also has its own dash pattern, so colour is not the only cue.
   */
  color: string;
  dash?: number[];
  values: Array<number | null>;
}

export interface TimeSeriesChartProps {
  /** Bucket starts, epoch milliseconds. */
  times: number[];
  series: ChartSeries[];
  /** Unit of the y axis, for its labels (`ms`, or nothing for counts). */
  unit?: string;
  height?: number;
  /** Draw bars (filled, from zero) instead of lines: counts per bucket. */
  bars?: boolean;
  /** A click on the plot: the bucket under the cursor. */
  onBucketClick?: (index: number) => void;
}

const BAR_PATHS = uPlot.paths.bars?.({ size: [0.8, 48] });
const COUNT_INCREMENTS = [
  1, 2, 5, 10, 20, 50, 100, 200, 500, 1e3, 2e3, 5e3, 1e4, 2e4, 5e4, 1e5, 1e6,
];

/**
 * A time chart drawn by uPlot (~23 KB gzip: chosen over ECharts, ~180 KB for the same charts).
 * This module is loaded lazily, so the landing page's first render does not wait for it. It
 * follows its container's width.
 */
export default function TimeSeriesChart(props: TimeSeriesChartProps) {
  const container = useRef<HTMLDivElement>(null);
  const onClick = useRef(props.onBucketClick);
  onClick.current = props.onBucketClick;
  const { times, series, unit, bars = false, height = 220 } = props;
  const scheme = useColorSchemeVersion();

  useEffect(() => {
    const element = container.current;
    if (!element) return;
    const colorOf = (css: string) => resolveCssColor(element, css);
    const data: uPlot.AlignedData = [times.map((t) => t / 1000), ...series.map((s) => s.values)];
    const options: uPlot.Options = {
      width: Math.max(element.clientWidth, 200),
      height,
      legend: { show: false },
      cursor: { points: { size: 6 }, drag: { x: false, y: false } },
      scales: { y: { range: (_u, _min, max) => [0, Math.max(max, 1)] } },
      axes: [
        { stroke: 'currentColor', grid: { stroke: 'rgba(128,128,128,0.2)' } },
        {
          stroke: 'currentColor',
          grid: { stroke: 'rgba(128,128,128,0.2)' },
          size: 64,
          // Counts tick at whole numbers only.
          ...(bars ? { incrs: COUNT_INCREMENTS } : {}),
          values: (_u, ticks) => ticks.map((tick) => (unit ? `${tick} ${unit}` : `${tick}`)),
        },
      ],
      series: [
        {},
        ...series.map((s) =>
          bars
            ? {
                label: s.label,
                stroke: colorOf(s.color),
                fill: colorOf(s.color),
                width: 0,
                paths: BAR_PATHS,
                points: { show: false },
              }
            : {
                label: s.label,
                stroke: colorOf(s.color),
                width: 2,
                ...(s.dash ? { dash: s.dash } : {}),
                spanGaps: false,
                points: { show: times.length <= 60 },
              },
        ),
      ],
      hooks: {
        ready: [
          (u) => {
            u.over.addEventListener('click', () => {
              const index = u.cursor.idx;
              if (index !== null && index !== undefined) onClick.current?.(index);
            });
            u.over.style.cursor = onClick.current ? 'pointer' : 'default';
          },
        ],
      },
    };
    const plot = new uPlot(options, data, element);
    const resize = new ResizeObserver(() => {
      plot.setSize({ width: Math.max(element.clientWidth, 200), height });
    });
    resize.observe(element);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
    // `scheme`: a theme change redraws with the colours it resolves to.
  }, [times, series, unit, bars, height, scheme]);

  // The canvas is a picture; the figure's caption and data table say what it shows.
  return <div ref={container} className="chart-canvas" aria-hidden="true" />;
}
