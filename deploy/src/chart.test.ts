import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ApiEnv } from '../../apps/api/src/env.ts';
import { CLI_ENV_KEYS } from '../../apps/cli/src/env.ts';
import { ConsoleEnv } from '../../apps/console/server/env.ts';
import { GatewayEnv } from '../../apps/gateway/src/env.ts';
import { schemaErrors } from './kubernetes-schema.ts';
import { type KubeObject, lintChart, renderChart } from './render.ts';
import {
  type Container,
  containersOf,
  envOf,
  find,
  podOf,
  selects,
  workloads,
} from './testing/objects.ts';
import { DATABASE_PASSWORD, VALUE_SETS } from './testing/value-sets.ts';
import { unknownFieldErrors } from './unknown-fields.ts';

/**
 * The chart rendered by the real Helm for each way it is installed, every object validated
 * against the Kubernetes OpenAPI schemas, and what the apps need from it checked against the
 * apps themselves: each container's environment against its app's `Env`, the Services against
 * the pods they route to, and the security settings every pod must have.
 */

const REPOSITORY = join(import.meta.dirname, '../..');

interface EnvSchema {
  shape: Record<string, unknown>;
  safeParse(value: unknown): { success: boolean; error?: { message: string } };
}

/** The app behind each image, and what it reads from its environment. */
const APPS: Record<string, { env: EnvSchema } | { keys: readonly string[] }> = {
  'toolgate-api': { env: ApiEnv },
  'toolgate-gateway': { env: GatewayEnv },
  'toolgate-console': { env: ConsoleEnv },
  'toolgate-cli': { keys: CLI_ENV_KEYS },
};

/** Stand-ins for values the pods get from Secrets and the downward API. */
const FROM_REFERENCES: Record<string, string> = {
  DATABASE_URL: 'postgres://user:password@db:5432/toolgate',
  GATEWAY_NAME: 'toolgate-gateway-edge-0',
};

function appOf(container: Container): string {
  const repository =
    container.image
      .replace(/:[^:/]+$/, '')
      .split('/')
      .at(-1) ?? '';
  if (!(repository in APPS)) throw new Error(`${container.name}: unknown image ${container.image}`);
  return repository;
}

/** Variables whose values are credentials: they must come from Secrets. */
const SECRET_VARIABLES = new Set([
  'DATABASE_URL',
  'API_TOKEN',
  'OPENAI_API_KEY',
  'ANTHROPIC_API_KEY',
  'TOOLGATE_TOKEN',
]);

describe.each(VALUE_SETS)('the chart with $name', ({ values }) => {
  let objects: KubeObject[];
  beforeAll(async () => {
    objects = await renderChart(values);
  });

  it('passes helm lint --strict', async () => {
    expect(await lintChart(values)).toContain('0 chart(s) failed');
  });

  it('renders objects that are each valid by the Kubernetes OpenAPI schemas', () => {
    expect(objects.length).toBeGreaterThan(5);
    const invalid = objects
      .map((object) => ({
        object: `${object.kind}/${object.metadata.name}`,
        errors: schemaErrors(object),
      }))
      .filter(({ errors }) => errors.length > 0);
    expect(invalid).toEqual([]);
  });

  it('declares no field the Kubernetes API does not know (kubectl would refuse it)', async () => {
    expect(await unknownFieldErrors(objects)).toEqual([]);
  });

  it('labels every object with the recommended labels', () => {
    for (const object of objects) {
      expect(object.metadata.labels, `${object.kind}/${object.metadata.name}`).toMatchObject({
        'app.kubernetes.io/name': 'toolgate',
        'app.kubernetes.io/instance': 'toolgate',
        'app.kubernetes.io/version': '0.1.0',
        'app.kubernetes.io/part-of': 'toolgate',
        'app.kubernetes.io/managed-by': 'Helm',
        'helm.sh/chart': 'toolgate-0.1.0',
        'app.kubernetes.io/component': expect.any(String),
      });
    }
  });

  it('runs every pod as non-root, without privileges or a service account token, and bounded', () => {
    for (const { object, pod } of workloads(objects)) {
      const where = `${object.kind}/${object.metadata.name}`;
      expect(pod.spec.securityContext, where).toMatchObject({
        runAsNonRoot: true,
        runAsUser: expect.any(Number),
        seccompProfile: { type: 'RuntimeDefault' },
      });
      expect(pod.spec.securityContext?.runAsUser, where).toBeGreaterThan(0);
      expect(pod.spec.automountServiceAccountToken, where).toBe(false);
      expect(pod.spec.serviceAccountName, where).toMatch(/^toolgate-/);
      for (const container of containersOf(pod)) {
        const at = `${where} ${container.name}`;
        expect(container.securityContext, at).toEqual({
          allowPrivilegeEscalation: false,
          privileged: false,
          readOnlyRootFilesystem: true,
          capabilities: { drop: ['ALL'] },
        });
        expect(container.resources?.requests, at).toMatchObject({
          cpu: expect.any(String),
          memory: expect.any(String),
        });
        expect(container.resources?.limits?.memory, at).toEqual(expect.any(String));
        // A read-only root: anything written goes to a mounted volume.
        expect(
          container.volumeMounts?.map((mount) => mount.mountPath),
          at,
        ).toContain('/tmp');
      }
    }
  });

  it('probes every server: /healthz and /readyz for the API and gateways, the page for the console', () => {
    for (const { object, pod } of workloads(objects)) {
      if (object.kind === 'Job') continue;
      for (const container of pod.spec.containers) {
        const probes = [container.livenessProbe, container.readinessProbe].map(
          (probe) => probe?.httpGet?.path,
        );
        const expected = container.name === 'console' ? ['/', '/'] : ['/healthz', '/readyz'];
        expect(probes, `${object.metadata.name} ${container.name}`).toEqual(expected);
        expect(container.livenessProbe?.httpGet?.port).toBe('http');
        expect(container.ports?.map((port) => port.name)).toContain('http');
      }
    }
  });

  it("sets only variables the containers' apps read, with values they accept, credentials from Secrets", () => {
    for (const { object, pod } of workloads(objects)) {
      for (const container of containersOf(pod)) {
        const at = `${object.metadata.name} ${container.name}`;
        const app = APPS[appOf(container)];
        const env = envOf(container);
        for (const [name, variable] of env) {
          if (SECRET_VARIABLES.has(name)) {
            expect(variable.value, `${at} ${name}`).toBeUndefined();
            expect(variable.valueFrom?.secretKeyRef?.name, `${at} ${name}`).toEqual(
              expect.any(String),
            );
          }
        }
        if (app && 'keys' in app) {
          expect(
            [...env.keys()].filter((name) => !app.keys.includes(name)),
            at,
          ).toEqual([]);
          continue;
        }
        if (!app) throw new Error(`${at}: no app`);
        expect(
          [...env.keys()].filter((name) => !(name in app.env.shape)),
          at,
        ).toEqual([]);
        const given = Object.fromEntries(
          [...env].map(([name, variable]) => [
            name,
            variable.value ?? FROM_REFERENCES[name] ?? 'x',
          ]),
        );
        const parsed = app.env.safeParse(given);
        expect(parsed.error?.message, at).toBeUndefined();
      }
    }
  });

  it('never puts the database URL anywhere but its Secret', () => {
    const holding = objects.filter((object) => JSON.stringify(object).includes(DATABASE_PASSWORD));
    for (const object of holding) expect(object.kind).toBe('Secret');
    const secrets = objects.filter((object) => object.kind === 'Secret');
    const given = (values.database as { url?: string }).url;
    expect(secrets.map((secret) => secret.metadata.name)).toEqual(
      given ? ['toolgate-database'] : [],
    );
  });

  it('routes every Service to pods that serve its target port', () => {
    const pods = workloads(objects).filter(({ object }) => object.kind !== 'Job');
    for (const service of objects.filter((object) => object.kind === 'Service')) {
      const spec = service.spec as {
        selector: Record<string, string>;
        ports: Array<{ targetPort: string }>;
      };
      const targets = pods.filter(({ pod }) => selects(spec.selector, pod.metadata.labels));
      expect(targets, service.metadata.name).toHaveLength(1);
      const ports = targets[0]?.pod.spec.containers.flatMap((c) => c.ports ?? []);
      for (const port of spec.ports) {
        expect(ports?.map((p) => p.name)).toContain(port.targetPort);
      }
    }
  });

  it('points the gateways and the console at the API Service', () => {
    const api = find(objects, 'Service', 'toolgate-api');
    const port = (api.spec as { ports: Array<{ port: number }> }).ports[0]?.port;
    for (const { pod } of workloads(objects)) {
      for (const container of pod.spec.containers) {
        const url =
          envOf(container).get('API_URL')?.value ?? envOf(container).get('TOOLGATE_API_URL')?.value;
        if (url !== undefined) expect(url).toBe(`http://toolgate-api:${port}`);
      }
    }
  });

  it('migrates in an init container before the API starts, with a script the image has', () => {
    const api = find(objects, 'Deployment', 'toolgate-api');
    const migrate = podOf(api).spec.initContainers?.find((c) => c.name === 'migrate');
    expect(migrate?.command).toEqual(['node', '--import', 'tsx', 'src/migrate.ts']);
    expect(existsSync(join(REPOSITORY, 'apps/api', migrate?.command?.[3] ?? ''))).toBe(true);
    expect(migrate?.image).toBe(podOf(api).spec.containers[0]?.image);
  });
});

describe('the chart refuses', () => {
  it('to install without a database', async () => {
    await expect(renderChart({})).rejects.toThrow(
      /set database.existingSecret \(a Secret holding the PostgreSQL URL\) or database.url/,
    );
  });

  it('a gateway group name that cannot be part of a pod name', async () => {
    await expect(
      renderChart({ database: { existingSecret: 'db' }, gateways: [{ name: 'Edge_1' }] }),
    ).rejects.toThrow(/gateways: name "Edge_1" must be lowercase/);
  });

  it('an unknown spool type', async () => {
    await expect(
      renderChart({
        database: { existingSecret: 'db' },
        gateways: [{ name: 'edge', spool: { type: 'hostPath' } }],
      }),
    ).rejects.toThrow(/spool.type must be persistentVolumeClaim or emptyDir/);
  });

  it('a registration Job without an operator token Secret', async () => {
    await expect(
      renderChart({ database: { existingSecret: 'db' }, registration: { job: { enabled: true } } }),
    ).rejects.toThrow(/operatorTokenSecret.name/);
  });
});
