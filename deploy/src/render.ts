import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';
import { DEPLOY_ROOT, helm } from './helm.ts';

/** deploy/helm/toolgate */
export const CHART_DIR = join(DEPLOY_ROOT, 'helm/toolgate');

/**
 * The Kubernetes version the chart is rendered for (`.Capabilities.KubeVersion`): the API level
 * of the schemas it is validated against (kubernetes-models 4.5).
 */
export const KUBE_VERSION = '1.30.0';

/** A rendered Kubernetes object. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  [field: string]: unknown;
}

export interface RenderOptions {
  release?: string;
  namespace?: string;
}

/** Runs `work` with `values` written to a file in a private Helm home, removed afterwards. */
async function withValues<T>(
  values: Record<string, unknown>,
  work: (valuesFile: string, home: string) => Promise<T>,
): Promise<T> {
  const home = await mkdtemp(join(tmpdir(), 'toolgate-helm-'));
  try {
    const valuesFile = join(home, 'values.yaml');
    await writeFile(valuesFile, stringify(values));
    return await work(valuesFile, home);
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

/** `helm template` of the chart with `values` over its values.yaml: the manifest text. */
export function renderChartText(
  values: Record<string, unknown>,
  options: RenderOptions = {},
): Promise<string> {
  return withValues(values, (valuesFile, home) =>
    helm(
      [
        'template',
        options.release ?? 'toolgate',
        CHART_DIR,
        '--namespace',
        options.namespace ?? 'toolgate',
        '--kube-version',
        KUBE_VERSION,
        '--values',
        valuesFile,
      ],
      home,
    ),
  );
}

/** The objects of a manifest stream (empty documents left out). */
export function parseManifests(text: string): KubeObject[] {
  return parseAllDocuments(text)
    .map((document) => {
      if (document.errors.length > 0) throw new Error(document.errors[0]?.message);
      return document.toJS() as KubeObject | null;
    })
    .filter((object): object is KubeObject => object !== null);
}

/** `helm template` of the chart with `values`, parsed. */
export async function renderChart(
  values: Record<string, unknown>,
  options: RenderOptions = {},
): Promise<KubeObject[]> {
  return parseManifests(await renderChartText(values, options));
}

/** NOTES.txt as `helm install` prints it (a client-side dry run: no cluster involved). */
export async function renderNotes(values: Record<string, unknown>): Promise<string> {
  const output = await withValues(values, (valuesFile, home) =>
    helm(
      [
        'install',
        'toolgate',
        CHART_DIR,
        '--namespace',
        'toolgate',
        '--dry-run=client',
        '--values',
        valuesFile,
      ],
      home,
    ),
  );
  const marker = '\nNOTES:\n';
  const notes = output.indexOf(marker);
  if (notes === -1) throw new Error('helm install --dry-run printed no NOTES');
  return output.slice(notes + marker.length);
}

/** `helm lint --strict` with `values`; throws with Helm's findings. */
export function lintChart(values: Record<string, unknown>): Promise<string> {
  return withValues(values, (valuesFile, home) =>
    helm(
      ['lint', '--strict', CHART_DIR, '--kube-version', KUBE_VERSION, '--values', valuesFile],
      home,
    ),
  );
}
