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

/** `helm template` of the chart with `values` over its values.yaml: the manifest text. */
export async function renderChartText(
  values: Record<string, unknown>,
  options: RenderOptions = {},
): Promise<string> {
  const home = await mkdtemp(join(tmpdir(), 'toolgate-helm-'));
  try {
    const valuesFile = join(home, 'values.yaml');
    await writeFile(valuesFile, stringify(values));
    return await helm(
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
    );
  } finally {
    await rm(home, { recursive: true, force: true });
  }
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
  const home = await mkdtemp(join(tmpdir(), 'toolgate-helm-'));
  try {
    const valuesFile = join(home, 'values.yaml');
    await writeFile(valuesFile, stringify(values));
    const output = await helm(
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
    );
    const notes = output.indexOf('\nNOTES:\n');
    if (notes === -1) throw new Error('helm install --dry-run printed no NOTES');
    return output.slice(notes + '\nNOTES:\n'.length);
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

/** `helm lint --strict` with `values`; throws with Helm's findings. */
export async function lintChart(values: Record<string, unknown>): Promise<string> {
  const home = await mkdtemp(join(tmpdir(), 'toolgate-helm-'));
  try {
    const valuesFile = join(home, 'values.yaml');
    await writeFile(valuesFile, stringify(values));
    return await helm(
      ['lint', '--strict', CHART_DIR, '--kube-version', KUBE_VERSION, '--values', valuesFile],
      home,
    );
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}
