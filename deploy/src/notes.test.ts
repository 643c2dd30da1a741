import { describe, expect, it } from 'vitest';
import { renderChart, renderNotes } from './render.ts';
import { containerOf, envOf, find } from './testing/objects.ts';
import { VALUE_SETS } from './testing/value-sets.ts';

/** What `helm install` prints: the steps after an install, with this release's names. */

const SEVERAL = VALUE_SETS[2];
const WITH_REGISTRATION_JOB = VALUE_SETS[3];
if (!SEVERAL || !WITH_REGISTRATION_JOB) throw new Error('value sets moved');

describe('NOTES.txt', () => {
  it('gives each group the commands that create the token Secret its pods read', async () => {
    const [notes, objects] = await Promise.all([
      renderNotes(SEVERAL.values),
      renderChart(SEVERAL.values),
    ]);
    expect(notes).toContain("grep -A 2 'First start'");
    expect(notes).toContain('toolgate apply -f gateways.yaml');
    expect(notes).toContain('Upgrades run the migrations first (Job toolgate-migrate).');
    for (const group of ['edge', 'eu', 'scratch']) {
      const gateway = containerOf(
        find(objects, 'StatefulSet', `toolgate-gateway-${group}`),
        'gateway',
      );
      const secret = envOf(gateway).get('API_TOKEN')?.valueFrom?.secretKeyRef;
      expect(notes).toContain(
        `kubectl -n toolgate create secret generic ${secret?.name} --from-file=${secret?.key}=${group}.token`,
      );
    }
    expect(notes).toContain('toolgate tokens issue gw-eu ');
  });

  it('leaves the registration to the Job when it is on', async () => {
    const notes = await renderNotes(WITH_REGISTRATION_JOB.values);
    expect(notes).toContain('The Job toolgate-register-gateways registers them');
    expect(notes).not.toContain('toolgate apply -f gateways.yaml');
    expect(notes).not.toContain('port-forward svc/toolgate-console');
  });
});
