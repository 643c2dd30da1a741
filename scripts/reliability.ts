import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FIGURES_DIR_VARIABLE, type Figures } from './reliability/figures.ts';
import { summarizeTrust } from './reliability/trust-figures.ts';

/**
 * `pnpm test:reliability`: runs the reliability and security tests (faults with real
 * processes, PostgreSQL restart, fuzzing of every API route and both gateway endpoints, access
 * matrix, secret scan, tamper evidence, headers and limits, the short soak) and prints one table
 * of what they did. Every figure comes from the tests themselves: each writes a small JSON file
 * into a temporary directory (never into the repository), which this script adds up. Exits
 * non-zero when a test failed or a figure is wrong (a fault not survived, a receipt missing, a
 * secret found, a 5xx to bad input, a load error).
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Vitest file filters: the suites this table is about. */
export const RELIABILITY_TESTS = [
  'apps/api/src/faults/',
  'apps/api/src/quality/',
  'apps/api/src/receipts/chain-verify.test.ts',
  'apps/gateway/src/faults/',
  'apps/gateway/src/quality/',
  'packages/core/src/secrets.test.ts',
  'e2e/stack/soak.test.ts',
  // Trust tests anywhere: receipt evasion, poison pills, spoofing, tampering.
  '.trust.test.ts',
];

export interface Summary {
  rows: Array<[string, string]>;
  problems: string[];
}

/** Adds up what the tests recorded. */
export function summarize(all: Figures[]): Summary {
  const problems: string[] = [];
  const loads = all.flatMap((f) => (f.load ? [f.load] : []));
  const faults = all.flatMap((f) => (f.fault ? [f.fault] : []));
  const injected = faults.filter((f) => f.event === 'injected');
  const survived = faults.filter((f) => f.event === 'survived');
  const unsurvived = [...new Set(injected.map((f) => f.name))].filter(
    (name) =>
      survived.filter((f) => f.name === name).length <
      injected.filter((f) => f.name === name).length,
  );
  const bad = all.flatMap((f) => (f.badInputs ? [f.badInputs] : []));
  const receipts = all.flatMap((f) => (f.receipts ? [f.receipts] : []));
  const secrets = all.flatMap((f) => (f.secrets ? [f.secrets] : []));
  const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

  const loadText =
    loads.length === 0
      ? 'not measured'
      : loads
          .map((l) => {
            const rss = Object.entries(l.rssMiB ?? {})
              .map(([name, { start, end }]) => `${name} ${start.toFixed(0)}→${end.toFixed(0)}`)
              .join(', ');
            return (
              `${l.targetRate} req/s × ${l.seconds} s = ${l.requests} requests, ${l.errors} errors, ` +
              `spool ${l.spoolDrained ? 'drained' : 'NOT drained'}; RSS MiB ${rss}`
            );
          })
          .join('; ');
  if (loads.length === 0) problems.push('no load figures (did the soak run?)');
  for (const l of loads) {
    if (l.errors > 0) problems.push(`load: ${l.errors} errors`);
    if (!l.spoolDrained) problems.push('load: the spool did not drain');
  }

  if (injected.length === 0) problems.push('no fault was injected');
  if (unsurvived.length > 0) problems.push(`faults not survived: ${unsurvived.join('; ')}`);
  const kinds = new Set(injected.map((f) => f.name)).size;

  const tried = sum(bad.map((b) => b.tried));
  const serverErrors = sum(bad.map((b) => b.serverErrors));
  if (tried === 0) problems.push('no bad input was tried');
  if (serverErrors > 0) problems.push(`${serverErrors} bad inputs were answered with a 5xx`);

  const sent = sum(receipts.map((r) => r.sent));
  const stored = sum(receipts.map((r) => r.stored));
  if (sent !== stored) problems.push(`receipts: ${sent} sent but ${stored} stored`);

  const found = sum(secrets.map((s) => s.found));
  const planted = Math.max(0, ...secrets.map((s) => s.planted));
  const places = [...new Set(secrets.flatMap((s) => s.places))];
  if (secrets.length === 0) problems.push('the secret scan did not run');
  if (found > 0) problems.push(`${found} secrets found`);

  const trust = summarizeTrust(all);
  problems.push(...trust.problems);

  return {
    rows: [
      ['load held', loadText],
      [
        'faults injected / survived',
        `${injected.length} / ${survived.length} (${kinds} kinds${unsurvived.length ? `; NOT survived: ${unsurvived.join('; ')}` : ''})`,
      ],
      ['bad inputs tried', `${tried} (${serverErrors} answered 5xx)`],
      ['receipts sent / stored', `${sent} / ${stored}`],
      [
        'secrets found',
        `${found} (${planted} kinds planted; searched: ${places.join(', ') || 'nothing'})`,
      ],
      ...trust.rows,
    ],
    problems,
  };
}

/** The rows as one plain-text table. */
export function renderTable(rows: Array<[string, string]>): string {
  const left = Math.max(...rows.map(([name]) => name.length));
  const right = Math.max(...rows.map(([, value]) => value.length));
  const rule = `+-${'-'.repeat(left)}-+-${'-'.repeat(right)}-+`;
  return [
    rule,
    ...rows.map(([name, value]) => `| ${name.padEnd(left)} | ${value.padEnd(right)} |`),
    rule,
  ].join('\n');
}

async function main(): Promise<number> {
  const dir = await mkdtemp(join(tmpdir(), 'toolgate-reliability-'));
  try {
    const code = await new Promise<number>((resolve) => {
      const child = spawn(
        'pnpm',
        ['exec', 'vitest', 'run', ...RELIABILITY_TESTS, ...process.argv.slice(2)],
        {
          cwd: ROOT,
          stdio: 'inherit',
          env: { ...process.env, [FIGURES_DIR_VARIABLE]: dir },
        },
      );
      child.on('exit', (exitCode) => resolve(exitCode ?? 1));
    });
    const files = await readdir(dir);
    const figures = await Promise.all(
      files.map(async (file) => JSON.parse(await readFile(join(dir, file), 'utf8')) as Figures),
    );
    const { rows, problems } = summarize(figures);
    rows.push(['tests', code === 0 ? 'all passed' : `FAILED (vitest exit code ${code})`]);
    process.stdout.write(`\nToolgate reliability and security\n${renderTable(rows)}\n`);
    if (problems.length > 0) {
      process.stdout.write(`\n${problems.map((p) => `  ✗ ${p}`).join('\n')}\n`);
    }
    return code !== 0 || problems.length > 0 ? 1 : 0;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.exitCode = await main();
}
