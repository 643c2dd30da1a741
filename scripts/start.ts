import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

/**
 * `pnpm start`: runs Toolgate's processes side by side with prefixed logs, and stops them all
 * cleanly on Ctrl-C (or when one of them dies). Data lives under `.data/` and is reused.
 */
interface Service {
  name: string;
  entry: string;
  color: number;
}

const SERVICES: Service[] = [{ name: 'api', entry: 'apps/api/src/main.ts', color: 36 }];

const children = new Map<string, ChildProcess>();
let stopping = false;

function prefix(service: Service, stream: NodeJS.ReadableStream, out: NodeJS.WritableStream) {
  const label = `\u001b[${service.color}m${service.name.padEnd(8)}|\u001b[0m `;
  createInterface({ input: stream }).on('line', (line) => out.write(`${label}${line}\n`));
}

function stopAll(code: number) {
  if (stopping) return;
  stopping = true;
  for (const child of children.values()) child.kill('SIGINT');
  const force = setTimeout(() => {
    for (const child of children.values()) child.kill('SIGKILL');
  }, 10_000);
  force.unref();
  const wait = [...children.values()].map(
    (child) =>
      new Promise((resolve) =>
        child.exitCode !== null ? resolve(null) : child.once('exit', resolve),
      ),
  );
  void Promise.all(wait).then(() => process.exit(code));
}

for (const service of SERVICES) {
  const child = spawn(process.execPath, ['--import', 'tsx', service.entry], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: process.env,
  });
  children.set(service.name, child);
  prefix(service, child.stdout as NodeJS.ReadableStream, process.stdout);
  prefix(service, child.stderr as NodeJS.ReadableStream, process.stderr);
  child.on('exit', (code, signal) => {
    children.delete(service.name);
    if (!stopping) {
      process.stderr.write(`${service.name} exited (${signal ?? code}); stopping everything\n`);
      stopAll(code ?? 1);
    }
  });
}

process.on('SIGINT', () => stopAll(0));
process.on('SIGTERM', () => stopAll(0));
process.stdout.write(
  'Starting Toolgate (Ctrl-C stops everything). Try the engine offline too: pnpm toolgate eval --help\n',
);
