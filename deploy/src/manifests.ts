import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'yaml';
import { DEPLOY_ROOT } from './helm.ts';
import { renderChartText } from './render.ts';

/** The plain manifests for `kubectl apply`, rendered from the chart. */
export const MANIFESTS_FILE = join(DEPLOY_ROOT, 'kubernetes/toolgate.yaml');
export const MANIFEST_VALUES_FILE = join(DEPLOY_ROOT, 'kubernetes/values.yaml');

const HEADER = `# Toolgate for \`kubectl apply\`: rendered from the Helm chart deploy/helm/toolgate with
# deploy/kubernetes/values.yaml, by \`pnpm --filter @toolgate/deploy manifests\`. Do not edit: change
# the chart or those values and render again. Install: docs/operations.md, "Kubernetes".
`;

/** What deploy/kubernetes/toolgate.yaml must hold. */
export async function renderManifests(): Promise<string> {
  const values = parse(await readFile(MANIFEST_VALUES_FILE, 'utf8')) as Record<string, unknown>;
  return HEADER + (await renderChartText(values));
}
