/**
 * Reading the gateway's `/metrics` (Prometheus text format) from the outside, as a scraper
 * would. Test support for the fault-injection tests.
 */

/**
 * The sum of the samples of `name` whose labels include `labels` (0 when there are none).
 * `name` is the exact sample name (`toolgate_gateway_spool_depth`, `…_total`).
 */
export function metricValue(
  text: string,
  name: string,
  labels: Record<string, string> = {},
): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || !line.startsWith(name)) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([^}]*)\})?\s+(\S+)/.exec(line);
    if (!match || match[1] !== name) continue;
    const sample = parseLabels(match[3] ?? '');
    if (Object.entries(labels).every(([key, want]) => sample[key] === want)) {
      sum += Number(match[4]);
    }
  }
  return sum;
}

/** Scrapes `<gatewayUrl>/metrics` and reads one metric. */
export async function readMetric(
  gatewayUrl: string,
  name: string,
  labels: Record<string, string> = {},
): Promise<number> {
  const response = await fetch(`${gatewayUrl}/metrics`, { signal: AbortSignal.timeout(5000) });
  if (response.status !== 200) throw new Error(`/metrics answered ${response.status}`);
  return metricValue(await response.text(), name, labels);
}

function parseLabels(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const match of text.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
    labels[match[1] as string] = (match[2] as string).replace(/\\(.)/g, (_, c: string) =>
      c === 'n' ? '\n' : c,
    );
  }
  return labels;
}
