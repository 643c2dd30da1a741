import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { DEPLOY_ROOT } from './helm.ts';
import type { KubeObject } from './render.ts';

/**
 * Fields the Kubernetes API does not know. The OpenAPI schemas leave objects open (a misspelt
 * `readOnlyRootFilesytem` passes them), while `kubectl apply` and the API server refuse unknown
 * fields (strict field validation, the default since Kubernetes 1.27). kubernetes-models also
 * ships each kind as a TypeScript interface generated from the same OpenAPI document, and
 * TypeScript rejects an object literal's properties its type does not declare — so each object
 * is written out as a literal of its kind's interface and type-checked with the workspace's
 * `tsc`. Each message names the object and the unknown field.
 */

const run = promisify(execFile);

function modulePath(object: KubeObject): string {
  return `kubernetes-models/${object.apiVersion}/${object.kind}`;
}

export async function unknownFieldErrors(objects: KubeObject[]): Promise<string[]> {
  // Inside deploy/, so `kubernetes-models` resolves from deploy/node_modules.
  const dir = join(DEPLOY_ROOT, 'node_modules/.cache', `unknown-fields-${randomUUID()}`);
  await mkdir(dir, { recursive: true });
  try {
    const lines: string[] = [];
    const owners: Array<{ from: number; object: KubeObject }> = [];
    objects.forEach((object, index) => {
      lines.push(`import type { I${object.kind} as T${index} } from '${modulePath(object)}';`);
    });
    objects.forEach((object, index) => {
      owners.push({ from: lines.length + 1, object });
      lines.push(
        ...`export const object${index}: T${index} = ${JSON.stringify(object, null, 1)};`.split(
          '\n',
        ),
      );
    });
    await writeFile(join(dir, 'objects.ts'), lines.join('\n'));
    await writeFile(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          target: 'ES2022',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          types: [],
        },
        files: ['objects.ts'],
      }),
    );
    const output = await typecheck(dir);
    return output
      .split('\n')
      .map((line) => /^objects\.ts\((\d+),\d+\): error TS\d+: (.*)$/.exec(line.trim()))
      .filter((match): match is RegExpExecArray => match !== null)
      .map(([, lineNumber, message]) => {
        const owner = owners.findLast((candidate) => candidate.from <= Number(lineNumber));
        const name = owner ? `${owner.object.kind}/${owner.object.metadata.name}` : 'imports';
        return `${name}: ${message}`;
      });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** tsc's diagnostics for the project in `dir` ('' when it type-checks). */
async function typecheck(dir: string): Promise<string> {
  const require = createRequire(join(DEPLOY_ROOT, '..', 'package.json'));
  const tsc = join(dirname(require.resolve('typescript/package.json')), 'bin/tsc');
  try {
    await run(process.execPath, [tsc, '-p', dir, '--pretty', 'false'], { cwd: dir });
    return '';
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; message: string };
    const output = `${failed.stdout ?? ''}${failed.stderr ?? ''}`;
    if (!output.includes('error TS')) throw new Error(`tsc failed: ${output || failed.message}`);
    return output;
  }
}
