import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { matchesLabelSelector } from '@toolgate/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseResourceDocument, readSourcedDocuments } from '../../apps/cli/src/resource-files.ts';
import { type KubeObject, renderChart } from './render.ts';
import { containerOf, envOf, find, podOf } from './testing/objects.ts';
import { VALUE_SETS } from './testing/value-sets.ts';

/**
 * The gateway groups of the chart: each pod a `Gateway` resource of its own name with its own
 * spool, registered up to the group's most replicas, autoscaled and disruption-budgeted; and the
 * hooks that migrate before an upgrade and register gateways after one.
 */

const SEVERAL = VALUE_SETS[2];
const WITH_INGRESS = VALUE_SETS[3];
if (!SEVERAL || !WITH_INGRESS) throw new Error('value sets moved');

interface StatefulSetSpec {
  serviceName: string;
  replicas?: number;
  selector: { matchLabels: Record<string, string> };
  volumeClaimTemplates?: Array<{
    metadata: { name: string };
    spec: { storageClassName?: string; resources: { requests: { storage: string } } };
  }>;
  persistentVolumeClaimRetentionPolicy?: { whenDeleted: string; whenScaled: string };
}

/** The documents of the registration ConfigMap, each validated as `toolgate apply` would. */
async function registration(objects: KubeObject[]) {
  const configMap = find(objects, 'ConfigMap', 'toolgate-gateway-registration');
  const text = (configMap as { data?: Record<string, string> }).data?.['gateways.yaml'] ?? '';
  const file = join(await mkdtemp(join(tmpdir(), 'toolgate-registration-')), 'gateways.yaml');
  await writeFile(file, text);
  const documents = await readSourcedDocuments([file]);
  return documents.map((document) => parseResourceDocument(document));
}

describe('several gateway groups', () => {
  let objects: KubeObject[];
  beforeAll(async () => {
    objects = await renderChart(SEVERAL.values);
  });

  it('registers one Gateway per pod name each StatefulSet can create, valid for toolgate apply', async () => {
    const documents = await registration(objects);
    const gateways = documents.filter((document) => document.kind === 'Gateway');
    expect(gateways.map((gateway) => gateway.name)).toEqual([
      ...[0, 1, 2, 3, 4, 5].map((ordinal) => `toolgate-gateway-edge-${ordinal}`),
      ...[0, 1, 2].map((ordinal) => `toolgate-gateway-eu-${ordinal}`),
      'toolgate-gateway-scratch-0',
    ]);
    const identities = documents.filter((document) => document.kind === 'Identity');
    expect(identities.map((identity) => [identity.name, identity.input.spec])).toEqual([
      ['toolgate-gateway-edge', expect.objectContaining({ type: 'service', roles: ['gateway'] })],
      ['gw-eu', expect.objectContaining({ type: 'service', roles: ['gateway'] })],
      ['toolgate-gateway-scratch', expect.objectContaining({ roles: ['gateway'] })],
    ]);
    const eu = gateways.find((gateway) => gateway.name === 'toolgate-gateway-eu-0');
    expect(eu?.input.spec).toMatchObject({ identity: 'gw-eu' });
    // The group's labels over the defaults: what policies select on.
    expect(eu?.input.metadata.labels).toEqual({ env: 'prod', region: 'eu' });
    expect(
      matchesLabelSelector({ matchLabels: { region: 'eu' } }, eu?.input.metadata.labels ?? {}),
    ).toBe(true);
  });

  it('names each gateway after its pod and gives it its group token and the API', () => {
    for (const group of ['edge', 'eu', 'scratch']) {
      const statefulSet = find(objects, 'StatefulSet', `toolgate-gateway-${group}`);
      const env = envOf(containerOf(statefulSet, 'gateway'));
      expect(env.get('GATEWAY_NAME')?.valueFrom?.fieldRef?.fieldPath).toBe('metadata.name');
      expect(env.get('DATA_DIR')?.value).toBe('/var/lib/toolgate/gateway');
      expect(env.get('API_URL')?.value).toBe('http://toolgate-api:8080');
    }
    const eu = envOf(containerOf(find(objects, 'StatefulSet', 'toolgate-gateway-eu'), 'gateway'));
    expect(eu.get('API_TOKEN')?.valueFrom?.secretKeyRef).toEqual({
      name: 'eu-gateway-token',
      key: 'API_TOKEN',
    });
    expect(eu.get('SPOOL_FSYNC')?.value).toBe('request');
    expect(eu.get('OPENAI_API_KEY')?.valueFrom?.secretKeyRef).toEqual({
      name: 'provider-keys',
      key: 'OPENAI_API_KEY',
      optional: true,
    });
    const edge = containerOf(find(objects, 'StatefulSet', 'toolgate-gateway-edge'), 'gateway');
    expect(envOf(edge).get('API_TOKEN')?.valueFrom?.secretKeyRef).toEqual({
      name: 'toolgate-gateway-edge-token',
      key: 'token',
    });
    expect(edge.envFrom).toEqual([{ secretRef: { name: 'mcp-credentials' } }]);
    const scratch = containerOf(
      find(objects, 'StatefulSet', 'toolgate-gateway-scratch'),
      'gateway',
    );
    expect(envOf(scratch).get('OPENAI_BASE_URL')?.value).toBe('http://mock-provider:8090');
  });

  it('gives each pod a volume of its own, kept when the pod goes, unless the group asks for emptyDir', () => {
    const eu = find(objects, 'StatefulSet', 'toolgate-gateway-eu').spec as StatefulSetSpec;
    expect(eu.volumeClaimTemplates).toEqual([
      expect.objectContaining({
        metadata: expect.objectContaining({ name: 'spool' }),
        spec: expect.objectContaining({
          storageClassName: 'fast-ssd',
          accessModes: ['ReadWriteOnce'],
          resources: { requests: { storage: '20Gi' } },
        }),
      }),
    ]);
    expect(eu.persistentVolumeClaimRetentionPolicy).toEqual({
      whenDeleted: 'Retain',
      whenScaled: 'Retain',
    });
    const scratchSet = find(objects, 'StatefulSet', 'toolgate-gateway-scratch');
    const scratch = scratchSet.spec as StatefulSetSpec;
    expect(scratch.volumeClaimTemplates).toBeUndefined();
    expect(podOf(scratchSet).spec.volumes).toContainEqual({
      name: 'spool',
      emptyDir: { sizeLimit: '1Gi' },
    });
    for (const group of ['edge', 'eu', 'scratch']) {
      const mounts = containerOf(
        find(objects, 'StatefulSet', `toolgate-gateway-${group}`),
        'gateway',
      ).volumeMounts;
      expect(mounts).toContainEqual({ name: 'spool', mountPath: '/var/lib/toolgate' });
    }
  });

  it('autoscales the groups that ask for it, and budgets disruptions', () => {
    const hpas = objects.filter((object) => object.kind === 'HorizontalPodAutoscaler');
    expect(hpas.map((hpa) => [hpa.metadata.name, hpa.spec])).toEqual([
      [
        'toolgate-gateway-edge',
        expect.objectContaining({
          scaleTargetRef: {
            apiVersion: 'apps/v1',
            kind: 'StatefulSet',
            name: 'toolgate-gateway-edge',
          },
          minReplicas: 2,
          maxReplicas: 6,
        }),
      ],
      ['toolgate-gateway-eu', expect.objectContaining({ minReplicas: 1, maxReplicas: 3 })],
    ]);
    // The HPA owns the replica count of an autoscaled group; helm upgrade must not reset it.
    expect(
      (find(objects, 'StatefulSet', 'toolgate-gateway-edge').spec as StatefulSetSpec).replicas,
    ).toBeUndefined();
    expect(
      (find(objects, 'StatefulSet', 'toolgate-gateway-scratch').spec as StatefulSetSpec).replicas,
    ).toBe(1);
    const budgets = objects.filter((object) => object.kind === 'PodDisruptionBudget');
    expect(budgets.map((budget) => budget.metadata.name)).toEqual([
      'toolgate-api',
      'toolgate-gateway-edge',
      'toolgate-gateway-eu',
    ]);
    for (const budget of budgets) {
      const selector = (budget.spec as { selector: { matchLabels: Record<string, string> } })
        .selector;
      const target = find(
        objects,
        budget.metadata.name === 'toolgate-api' ? 'Deployment' : 'StatefulSet',
        budget.metadata.name,
      );
      expect(podOf(target).metadata.labels).toMatchObject(selector.matchLabels);
    }
  });

  it("keeps each group's pods apart from the other groups'", () => {
    const edge = (find(objects, 'StatefulSet', 'toolgate-gateway-edge').spec as StatefulSetSpec)
      .selector;
    const eu = podOf(find(objects, 'StatefulSet', 'toolgate-gateway-eu')).metadata.labels;
    expect(Object.entries(edge.matchLabels).every(([key, value]) => eu[key] === value)).toBe(false);
    const governing = find(objects, 'Service', 'toolgate-gateway-eu-pods').spec as {
      clusterIP: string;
    };
    expect(governing.clusterIP).toBe('None');
    expect(
      (find(objects, 'StatefulSet', 'toolgate-gateway-eu').spec as StatefulSetSpec).serviceName,
    ).toBe('toolgate-gateway-eu-pods');
  });
});

describe('hooks', () => {
  it('migrates before an upgrade rolls the API, with the API image and the database Secret', async () => {
    const objects = await renderChart({ database: { existingSecret: 'pg' } });
    const job = find(objects, 'Job', 'toolgate-migrate');
    expect(job.metadata.annotations).toMatchObject({
      'helm.sh/hook': 'pre-upgrade',
      'helm.sh/hook-delete-policy': 'before-hook-creation,hook-succeeded',
    });
    const migrate = containerOf(job, 'migrate');
    expect(migrate.command).toEqual(['node', '--import', 'tsx', 'src/migrate.ts']);
    expect(envOf(migrate).get('DATABASE_URL')?.valueFrom?.secretKeyRef).toEqual({
      name: 'pg',
      key: 'url',
    });
    const off = await renderChart({
      database: { existingSecret: 'pg' },
      migrations: { job: { enabled: false } },
    });
    expect(off.filter((object) => object.kind === 'Job')).toEqual([]);
  });

  it('registers the gateways after install and upgrade with the operator token Secret', async () => {
    const objects = await renderChart(WITH_INGRESS.values);
    const job = find(objects, 'Job', 'toolgate-register-gateways');
    expect(job.metadata.annotations?.['helm.sh/hook']).toBe('post-install,post-upgrade');
    const register = containerOf(job, 'register');
    expect(register.image).toBe('registry.example.com/platform/toolgate-cli:1.2.3');
    expect(register.args).toEqual(['apply', '-f', '/etc/toolgate/registration/gateways.yaml']);
    expect(envOf(register).get('TOOLGATE_TOKEN')?.valueFrom?.secretKeyRef).toEqual({
      name: 'toolgate-operator',
      key: 'token',
    });
    expect(podOf(job).spec.volumes).toContainEqual({
      name: 'registration',
      configMap: { name: 'toolgate-gateway-registration' },
    });
  });
});

describe('images and ingress', () => {
  it('prefixes the registry, and a per-image tag wins over the global one', async () => {
    const objects = await renderChart(WITH_INGRESS.values);
    expect(containerOf(find(objects, 'Deployment', 'toolgate-api'), 'api').image).toBe(
      'registry.example.com/platform/toolgate-api:1.2.4',
    );
    expect(
      containerOf(find(objects, 'StatefulSet', 'toolgate-gateway-edge'), 'gateway').image,
    ).toBe('registry.example.com/platform/toolgate-gateway:1.2.3');
    expect(objects.some((object) => object.metadata.name === 'toolgate-console')).toBe(false);
    const defaults = await renderChart({ database: { existingSecret: 'pg' } });
    expect(containerOf(find(defaults, 'Deployment', 'toolgate-console'), 'console').image).toBe(
      'toolgate-console:0.1.0',
    );
  });

  it('routes each host to its Service', async () => {
    const objects = await renderChart(WITH_INGRESS.values);
    const ingress = find(objects, 'Ingress', 'toolgate').spec as {
      ingressClassName: string;
      rules: Array<{
        host: string;
        http: { paths: Array<{ backend: { service: { name: string } } }> };
      }>;
    };
    expect(ingress.ingressClassName).toBe('nginx');
    expect(
      ingress.rules.map((rule) => [rule.host, rule.http.paths[0]?.backend.service.name]),
    ).toEqual([
      ['toolgate-api.example.com', 'toolgate-api'],
      ['llm.example.com', 'toolgate-gateway-edge'],
    ]);
  });
});
