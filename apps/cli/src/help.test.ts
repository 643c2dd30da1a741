import { describe, expect, it } from 'vitest';
import { runCli } from './testing/run-cli.ts';

const COMMANDS: Array<{ path: string[]; mentions: string[] }> = [
  {
    path: ['apply'],
    mentions: ['--filename', '--dry-run', '--output', '--api-url', '--token', 'Exit codes'],
  },
  {
    path: ['get'],
    mentions: ['<kind>', '[name]', 'MediationPolicy', 'policies', '--output', 'Exit codes'],
  },
  { path: ['diff'], mentions: ['--filename', '1 differences found', 'Exit codes'] },
  { path: ['history'], mentions: ['<name>', '--output', 'Exit codes'] },
  { path: ['rollback'], mentions: ['--to-generation', 'kubectl rollout undo', 'Exit codes'] },
  { path: ['receipts'], mentions: ['list', 'verify'] },
  {
    path: ['receipts', 'list'],
    mentions: [
      '--surface <surface>',
      'mcp',
      '--outcome',
      '--tool-contains',
      '--order',
      '--output',
      'Exit codes',
    ],
  },
  { path: ['receipts', 'verify'], mentions: ['--gateway', 'prev_hash', 'Exit codes'] },
  { path: ['gateways'], mentions: ['quarantine'] },
  {
    path: ['gateways', 'quarantine'],
    mentions: ['<gateway>', 'rejected-receipts.ndjson', '--output', 'Exit codes'],
  },
  { path: ['approvals'], mentions: ['list', 'get', 'approve', 'deny', 'docs/approvals.md'] },
  {
    path: ['approvals', 'list'],
    mentions: ['--state <state>', 'pending', 'expired', '--output', 'Exit codes'],
  },
  { path: ['approvals', 'get'], mentions: ['<name>', 'act_', 'Exit codes'] },
  { path: ['approvals', 'approve'], mentions: ['<name>', '--reason', 'operator', 'Exit codes'] },
  { path: ['approvals', 'deny'], mentions: ['<name>', '--reason', 'Exit codes'] },
  { path: ['mcp'], mentions: ['list', 'get', 'drifts', 'accept', 'docs/mcp.md'] },
  { path: ['mcp', 'list'], mentions: ['--output', 'Exit codes'] },
  { path: ['mcp', 'get'], mentions: ['<name>', 'Exit codes'] },
  { path: ['mcp', 'drifts'], mentions: ['<name>', '--all', 'Exit codes'] },
  { path: ['mcp', 'accept'], mentions: ['<name>', '<tool>', '--hash', 'operator', 'Exit codes'] },
  { path: ['login'], mentions: ['--token-stdin', '0600', 'TOOLGATE_CONFIG', 'Exit codes'] },
  { path: ['whoami'], mentions: ['--api-url', 'Exit codes'] },
  { path: ['tokens'], mentions: ['issue', 'list', 'revoke'] },
  { path: ['tokens', 'issue'], mentions: ['--ttl', '--token-file', 'Exit codes'] },
  { path: ['tokens', 'list'], mentions: ['<identity>'] },
  { path: ['tokens', 'revoke'], mentions: ['<token-id>'] },
  { path: ['eval'], mentions: ['--policy', '--request', 'Exit codes'] },
];

describe('--help', () => {
  it('lists every command at the top level', async () => {
    const run = await runCli(['--help']);
    expect(run.code).toBe(0);
    for (const { path } of COMMANDS.filter((c) => c.path.length === 1)) {
      expect(run.stdout).toMatch(new RegExp(`^ {2}${path[0]}\\b`, 'm'));
    }
    expect(run.stdout).toContain('TOOLGATE_API_URL');
  });

  it.each(COMMANDS)('explains $path', async ({ path, mentions }) => {
    const run = await runCli([...path, '--help']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toContain(`Usage: toolgate ${path.join(' ')}`);
    for (const text of mentions) expect(run.stdout).toContain(text);
  });

  it('turns wrong usage into exit code 2 with a pointer to --help', async () => {
    const run = await runCli(['apply']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("required option '-f, --filename <path...>' not specified");
    expect(run.stderr).toContain('(run with --help for usage)');
    expect((await runCli(['receipts', 'frobnicate'])).code).toBe(2);
  });
});
