import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { matchesLabelSelector } from '@toolgate/core';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ApiEnv } from '../../api/src/env.ts';
import { ConsoleEnv } from '../../console/server/env.ts';
import { GatewayEnv } from '../../gateway/src/env.ts';
import { MockProviderEnv } from '../../mock-provider/src/env.ts';
import { CLI_ENV_KEYS, parseCliEnv } from './env.ts';
import { parseResourceDocument, readSourcedDocuments } from './resource-files.ts';
import { REPOSITORY_ROOT } from './testing/run-cli.ts';

/**
 * docker-compose.yml cannot be run here (no Docker engine), so it is checked statically against
 * the code it runs: every service's environment against its app's `Env` schema (a renamed or
 * mistyped variable fails), Dockerfiles against the workspace (a moved file or a missing
 * manifest fails), healthchecks, dependency conditions and the URLs services use to reach
 * each other.
 */

const root = REPOSITORY_ROOT;
const read = (path: string) => readFileSync(join(root, path), 'utf8');

interface ComposeService {
  image?: string;
  build?: { context: string; dockerfile: string };
  entrypoint?: string[];
  environment?: Record<string, string | number>;
  ports?: string[];
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  restart?: string;
}

const compose = parse(read('docker-compose.yml')) as {
  services: Record<string, ComposeService>;
  volumes: Record<string, unknown>;
};
const { services } = compose;

/** What `docker compose` substitutes with no `.env`: `${X:-default}` → default, `${X}` → ''. */
function interpolate(value: string): string {
  return value
    .replace(/\$\{(\w+):?-([^}]*)\}/g, (_, _name, fallback: string) => fallback)
    .replace(/\$\{(\w+)\}/g, '')
    .replaceAll('$$', '$');
}

function environmentOf(service: ComposeService): Record<string, string> {
  return Object.fromEntries(
    Object.entries(service.environment ?? {}).map(([key, value]) => [
      key,
      interpolate(String(value)),
    ]),
  );
}

interface EnvSchema {
  shape: Record<string, unknown>;
  safeParse(
    value: unknown,
  ):
    | { success: true }
    | { success: false; error: { issues: Array<{ path: PropertyKey[]; message: string }> } };
}

/** The apps compose runs, with the Env each parses at boot. */
const APPS: Record<
  string,
  { env: EnvSchema; dir: string; host: string; port: string; health: string }
> = {
  api: { env: ApiEnv, dir: 'apps/api', host: 'HOST', port: 'PORT', health: '/healthz' },
  gateway: { env: GatewayEnv, dir: 'apps/gateway', host: 'HOST', port: 'PORT', health: '/healthz' },
  'mock-provider': {
    env: MockProviderEnv,
    dir: 'apps/mock-provider',
    host: 'HOST',
    port: 'PORT',
    health: '/healthz',
  },
  console: {
    env: ConsoleEnv,
    dir: 'apps/console',
    host: 'CONSOLE_HOST',
    port: 'CONSOLE_PORT',
    health: '/',
  },
};

function problems(schema: EnvSchema, env: Record<string, string>): string[] {
  const result = schema.safeParse(env);
  return result.success
    ? []
    : result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
}

/** `ENV A=b C=d` lines of a Dockerfile. */
function dockerfileEnv(dockerfile: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of dockerfile.split('\n')) {
    if (!line.startsWith('ENV ')) continue;
    for (const pair of line.slice(4).trim().split(/\s+/)) {
      const [key = '', value = ''] = pair.split('=');
      env[key] = value;
    }
  }
  return env;
}

/** `COPY [--chown=…] src… dest` → the sources, relative to the build context. */
function copySources(dockerfile: string): string[] {
  return dockerfile
    .split('\n')
    .filter((line) => line.startsWith('COPY '))
    .flatMap((line) => {
      const words = line
        .slice(5)
        .trim()
        .split(/\s+/)
        .filter((w) => !w.startsWith('--'));
      return words.slice(0, -1);
    });
}

/** Workspace packages by name → folder. */
const WORKSPACE = new Map<string, string>(
  ['apps', 'packages'].flatMap((parent) =>
    readdirSync(join(root, parent))
      .filter((dir) => existsSync(join(root, parent, dir, 'package.json')))
      .map((dir) => {
        const manifest = JSON.parse(read(`${parent}/${dir}/package.json`)) as { name: string };
        return [manifest.name, `${parent}/${dir}`] as [string, string];
      }),
  ),
);

/** The workspace packages `pnpm install --filter <name>...` installs: itself and every workspace dependency, dev ones included. */
function workspaceClosure(name: string, seen = new Set<string>()): Set<string> {
  if (seen.has(name)) return seen;
  seen.add(name);
  const dir = WORKSPACE.get(name);
  if (!dir) throw new Error(`workspace package ${name} not found`);
  const manifest = JSON.parse(read(`${dir}/package.json`)) as Record<
    string,
    Record<string, string> | undefined
  >;
  for (const deps of [manifest.dependencies, manifest.devDependencies]) {
    for (const [dep, version] of Object.entries(deps ?? {})) {
      if (version.startsWith('workspace:')) workspaceClosure(dep, seen);
    }
  }
  return seen;
}

function packageName(dir: string): string {
  return (JSON.parse(read(`${dir}/package.json`)) as { name: string }).name;
}

/** The service and port an in-stack URL points at (`http://api:8080` → api, 8080). */
function stackTarget(value: string): { service: string; port: string } | undefined {
  if (!URL.canParse(value)) return undefined;
  const url = new URL(value);
  if (!Object.hasOwn(services, url.hostname)) return undefined;
  return { service: url.hostname, port: url.port };
}

describe('docker-compose.yml', () => {
  it('runs PostgreSQL, the API, the gateway, the console, the mock provider and setup', () => {
    expect(Object.keys(services).sort()).toEqual(
      ['api', 'console', 'gateway', 'mock-provider', 'postgres', 'setup'].sort(),
    );
    expect(services.postgres?.image).toMatch(/^postgres:18/);
  });

  describe.each(Object.entries(APPS))('%s', (name, app) => {
    const service = services[name] as ComposeService;
    const env = environmentOf(service);
    const dockerfile = read(service.build?.dockerfile ?? 'missing');

    it('sets only variables its Env reads, and values it accepts', () => {
      const unknown = Object.keys(env).filter((key) => !Object.hasOwn(app.env.shape, key));
      expect(unknown, `not in ${app.dir}'s Env`).toEqual([]);
      expect(problems(app.env, env)).toEqual([]);
      // Reachable from the other containers.
      expect(env[app.host]).toBe('0.0.0.0');
    });

    it('has a Dockerfile whose ENV its Env reads too', () => {
      expect(service.build).toEqual({ context: '.', dockerfile: `${app.dir}/Dockerfile` });
      const imageEnv = dockerfileEnv(dockerfile);
      const unknown = Object.keys(imageEnv).filter((key) => !Object.hasOwn(app.env.shape, key));
      expect(unknown).toEqual([]);
      expect(problems(app.env, imageEnv)).toEqual([]);
      expect(imageEnv[app.port]).toBe(env[app.port]);
    });

    it('is healthchecked on its own port', () => {
      const test = service.healthcheck?.test.join(' ') ?? '';
      expect(test).toContain(`http://127.0.0.1:${env[app.port]}${app.health}'`);
      expect(dockerfile).toContain(`http://127.0.0.1:${env[app.port]}${app.health}'`);
    });

    it('publishes (if at all) the port it listens on', () => {
      for (const mapping of service.ports ?? []) {
        expect(mapping.split(':').at(-1)).toBe(env[app.port]);
      }
    });
  });

  it('hands the gateway its token through the file setup writes', () => {
    const gateway = services.gateway as ComposeService;
    const entrypoint = interpolate(gateway.entrypoint?.join(' ') ?? '');
    expect(Object.hasOwn(GatewayEnv.shape, 'API_TOKEN')).toBe(true);
    expect(entrypoint).toContain(
      'API_TOKEN="$(cat /run/toolgate/gateway-token)" && export API_TOKEN && exec node --enable-source-maps dist/main.mjs',
    );
    expect(read('deploy/compose/setup.sh')).toContain('token_file=/run/toolgate/gateway-token');
    expect(gateway.volumes).toContain('bootstrap:/run/toolgate:ro');
    expect(services.setup?.volumes).toContain('bootstrap:/run/toolgate');
    expect(Object.keys(compose.volumes)).toContain('bootstrap');
    // With a token the gateway's Env is complete.
    expect(problems(GatewayEnv, { ...environmentOf(gateway), API_TOKEN: 'x' })).toEqual([]);
  });

  it('runs setup with the CLI, whose environment it reads', () => {
    const setup = services.setup as ComposeService;
    expect(setup.build).toEqual({ context: '.', dockerfile: 'apps/cli/Dockerfile' });
    const env = environmentOf(setup);
    expect(
      Object.keys(env).filter((key) => !(CLI_ENV_KEYS as readonly string[]).includes(key)),
    ).toEqual([]);
    expect(parseCliEnv(env)).toEqual({ TOOLGATE_API_URL: 'http://api:8080' });
    expect(setup.entrypoint).toEqual(['/bin/sh', '/app/deploy/compose/setup.sh']);
    expect(setup.restart).toBe('no');
  });

  it('registers a gateway that the example policy selects, with an identity of the gateway role', async () => {
    const script = read('deploy/compose/setup.sh');
    for (const file of script.match(/\/app\/[\w./-]+\.ya?ml/g) ?? []) {
      expect(existsSync(join(root, file.replace('/app/', ''))), file).toBe(true);
    }
    const [identity, gateway] = (
      await readSourcedDocuments([join(root, 'deploy/compose/gateway.yaml')])
    ).map(parseResourceDocument);
    expect(identity?.kind).toBe('Identity');
    expect(identity?.normalizedSpec).toMatchObject({ type: 'service', roles: ['gateway'] });
    expect(gateway?.kind).toBe('Gateway');
    expect(gateway?.name).toBe(environmentOf(services.gateway as ComposeService).GATEWAY_NAME);
    expect(gateway?.normalizedSpec).toMatchObject({ identity: identity?.name });
    const [policy] = (
      await readSourcedDocuments([join(root, 'examples/policies/github-guardrails.yaml')])
    ).map(parseResourceDocument);
    const spec = policy?.normalizedSpec as
      | { selector: Parameters<typeof matchesLabelSelector>[0] }
      | undefined;
    expect(spec?.selector).toBeDefined();
    const selector = spec?.selector ?? { matchLabels: { never: 'matches' } };
    expect(matchesLabelSelector(selector, gateway?.input.metadata.labels ?? {})).toBe(true);
  });

  it('points every in-stack URL at a service and the port it listens on', () => {
    const portOf = (service: string): string | undefined => {
      if (service === 'postgres') return '5432';
      const app = APPS[service];
      return app ? environmentOf(services[service] as ComposeService)[app.port] : undefined;
    };
    const urls = Object.values(services).flatMap((service) =>
      Object.values(environmentOf(service)).flatMap((value) => {
        const target = stackTarget(value);
        return target ? [target] : [];
      }),
    );
    expect(urls.length).toBeGreaterThanOrEqual(6);
    for (const { service, port } of urls) expect(port, service).toBe(portOf(service));
  });

  it('starts each service once what it needs is healthy (setup: completed)', () => {
    const conditions = Object.fromEntries(
      Object.entries(services).map(([name, service]) => [
        name,
        Object.fromEntries(
          Object.entries(service.depends_on ?? {}).map(([dep, { condition }]) => [dep, condition]),
        ),
      ]),
    );
    expect(conditions).toEqual({
      postgres: {},
      api: { postgres: 'service_healthy' },
      'mock-provider': {},
      setup: { api: 'service_healthy' },
      gateway: {
        api: 'service_healthy',
        'mock-provider': 'service_healthy',
        setup: 'service_completed_successfully',
      },
      console: { api: 'service_healthy' },
    });
    for (const [name, service] of Object.entries(services)) {
      if (name === 'setup') continue;
      expect(service.healthcheck?.test.length, `${name} healthcheck`).toBeGreaterThan(0);
    }
  });

  describe.each(Object.entries(services).filter(([, service]) => service.build))(
    '%s image',
    (name, service) => {
      const path = service.build?.dockerfile ?? '';
      const dockerfile = read(path);
      const dir = path.replace(/\/Dockerfile$/, '');
      const name_ = packageName(dir);

      it('copies only files that exist', () => {
        expect(existsSync(join(root, path))).toBe(true);
        for (const source of copySources(dockerfile)) {
          expect(existsSync(join(root, source)), `${path}: COPY ${source}`).toBe(true);
        }
      });

      it('installs with pnpm 12 from the lockfile, every workspace manifest it needs copied first', () => {
        expect(dockerfile).toMatch(/^FROM node:20-bookworm-slim$/m);
        expect(dockerfile).toContain('npm i -g pnpm@12.21.0');
        const install = `pnpm install --frozen-lockfile --filter ${name_}...`;
        expect(dockerfile).toContain(install);
        const beforeInstall = copySources(dockerfile.slice(0, dockerfile.indexOf(install)));
        for (const pkg of workspaceClosure(name_)) {
          expect(beforeInstall, `${name}: ${pkg}`).toContain(`${WORKSPACE.get(pkg)}/package.json`);
        }
        expect(beforeInstall).toEqual(expect.arrayContaining(['pnpm-lock.yaml', 'package.json']));
        // The root postinstall generates the Prisma client when @toolgate/db is installed.
        if (workspaceClosure(name_).has('@toolgate/db')) {
          expect(beforeInstall).toEqual(
            expect.arrayContaining(['prisma', 'prisma.config.ts', 'packages/db/scripts']),
          );
        }
      });

      it('runs what the package runs', () => {
        const scripts = (
          JSON.parse(read(`${dir}/package.json`)) as {
            scripts?: { start?: string; serve?: string };
          }
        ).scripts;
        const start = scripts?.start;
        if (scripts?.serve) {
          // A built app (the gateway): the image builds it and runs what `serve` runs.
          expect(dockerfile).toContain('RUN pnpm run build');
          expect(dockerfile).toContain(`CMD ["${scripts.serve.split(' ').join('", "')}"]`);
          expect(dockerfile).toContain(`WORKDIR /app/${dir}`);
          return;
        }
        if (!start) {
          expect(name).toBe('setup'); // the CLI: `bin/toolgate.js`
          expect(dockerfile).toContain('exec node /app/apps/cli/bin/toolgate.js');
          return;
        }
        const entry = start.replace(/^tsx /, '');
        // Node's own flags (a V8 heap size) may come before the entry the package runs.
        const flags = '(?:"--[a-z-]+=[0-9]+", )*';
        const escaped = entry.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
        expect(dockerfile).toMatch(
          new RegExp(`CMD \\["node", ${flags}"--import", "tsx", "${escaped}"\\]`),
        );
        expect(dockerfile).toContain(`WORKDIR /app/${dir}`);
      });
    },
  );

  it('keeps local artefacts out of the build context', () => {
    const ignored = read('.dockerignore').split('\n');
    for (const entry of [
      '**/node_modules',
      '**/dist',
      '**/.data',
      '.git',
      'packages/db/src/generated',
      '.env',
    ]) {
      expect(ignored).toContain(entry);
    }
  });
});
