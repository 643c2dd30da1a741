import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { schemaErrors } from './kubernetes-schema.ts';
import { MANIFESTS_FILE, renderManifests } from './manifests.ts';
import { parseManifests } from './render.ts';
import { unknownFieldErrors } from './unknown-fields.ts';

describe('deploy/kubernetes/toolgate.yaml', () => {
  it('is what the chart renders now (else: pnpm --filter @toolgate/deploy manifests)', async () => {
    const committed = await readFile(MANIFESTS_FILE, 'utf8');
    expect(
      committed === (await renderManifests()),
      'stale: run pnpm --filter @toolgate/deploy manifests',
    ).toBe(true);
  });

  it('holds no Helm hook and no Secret, and every object is valid', async () => {
    const objects = parseManifests(await readFile(MANIFESTS_FILE, 'utf8'));
    expect(objects.map((object) => object.metadata.annotations?.['helm.sh/hook'])).toEqual(
      objects.map(() => undefined),
    );
    expect(objects.filter((object) => object.kind === 'Secret')).toEqual([]);
    expect(objects.flatMap(schemaErrors)).toEqual([]);
    expect(await unknownFieldErrors(objects)).toEqual([]);
  });
});
