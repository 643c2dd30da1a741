import {
  type ApprovalState,
  approvalState,
  findCondition,
  type ToolCallApproval,
  type ToolCallApprovalSpec,
} from '@toolgate/core';
import { type Command, Option } from 'commander';
import { ApiError, connect, withConnectionOptions } from '../api.ts';
import type { CliContext } from '../context.ts';
import { CliError } from '../errors.ts';
import { age, type OutputFormat, outputOption, printAs, renderTable } from '../output.ts';
import type { StoredResource } from '../resources.ts';

interface ConnectionFlags {
  apiUrl?: string;
  token?: string;
}
interface ListOptions extends ConnectionFlags {
  output: OutputFormat;
  state?: ApprovalState;
}
interface DecideOptions extends ConnectionFlags {
  output: OutputFormat;
  reason?: string;
}

const STATES: ApprovalState[] = ['pending', 'approved', 'denied', 'expired'];

/**
 * `toolgate approvals list|get|approve|deny`: human decisions on the tool calls a
 * `require_approval` rule withheld. Gateways ask; operators answer here or in the console.
 */
export function registerApprovals(program: Command, ctx: CliContext): void {
  const approvals = program
    .command('approvals')
    .summary('list, approve and deny withheld tool calls')
    .description(
      [
        'A ToolCallApproval is a tool call a require_approval rule withheld, named after the',
        "call's action id (act_ + 32 hex). It is pending until an operator approves or denies it",
        'or its TTL runs out. Once approved, the agent retries the same call and it goes through',
        'until the approval expires. See docs/approvals.md.',
      ].join('\n'),
    );

  withConnectionOptions(
    approvals
      .command('list')
      .summary('list approvals, newest request first')
      .description(
        [
          'Lists approvals with their state (pending, approved, denied, expired), the tool, the',
          "caller's identity and the gateway that withheld the call. Expiry is judged by the clock,",
          'as gateways judge it.',
          '',
          'Exit codes: 0 listed (even when empty), 1 the API failed, 2 wrong usage.',
        ].join('\n'),
      )
      .addOption(new Option('--state <state>', 'only approvals in this state').choices(STATES))
      .addOption(outputOption())
      .addHelpText(
        'after',
        [
          '',
          'Examples:',
          '  toolgate approvals list --state pending',
          '  toolgate approvals list -o json',
        ].join('\n'),
      ),
  ).action(async (options: ListOptions) => {
    const { client } = await connect(ctx, options);
    const items: ToolCallApproval[] = [];
    let next: string | undefined;
    do {
      const page = await client.call('toolCallApprovals.list', {
        query: { limit: 500, ...(next ? { continue: next } : {}) },
      });
      items.push(...(page?.items ?? []));
      next = page?.metadata.continue;
    } while (next);
    const now = Date.now();
    const shown = items
      .filter((item) => options.state === undefined || approvalState(item, now) === options.state)
      .sort((a, b) => requestedAt(b).localeCompare(requestedAt(a)));
    const list = { apiVersion: 'v1', kind: 'List', items: shown };
    printAs(ctx.io, options.output, list, () =>
      shown.length === 0
        ? `No ${options.state ?? ''}${options.state ? ' ' : ''}approvals found.\n`
        : approvalTable(shown),
    );
  });

  withConnectionOptions(
    approvals
      .command('get')
      .argument('<name>', 'approval name (act_…)')
      .summary('show one approval')
      .description(
        [
          'Shows one approval: the tool, its redacted arguments, identity, gateway, the rule that',
          'withheld the call, the receipt of that request, and the decision with who and when.',
          '',
          'Exit codes: 0 shown, 1 not found or the API failed, 2 wrong usage.',
        ].join('\n'),
      )
      .addOption(outputOption('yaml'))
      .addHelpText(
        'after',
        ['', 'Examples:', `  toolgate approvals get act_${'0'.repeat(32)} -o json`].join('\n'),
      ),
  ).action(async (name: string, options: ListOptions) => {
    const { client } = await connect(ctx, options);
    const approval = await client
      .call('toolCallApprovals.get', { params: { name } })
      .catch(notFound(name));
    printAs(ctx.io, options.output, approval, () => approvalTable([approval]));
  });

  for (const decision of ['Approve', 'Deny'] as const) {
    const verb = decision.toLowerCase();
    withConnectionOptions(
      approvals
        .command(verb)
        .argument('<name>', 'approval name (act_…)')
        .summary(`${verb} a pending approval`)
        .description(
          [
            decision === 'Approve'
              ? 'Approves a pending call: the agent retries it and it goes through until the TTL ends.'
              : 'Denies a pending call: its retries are withheld, with your reason, until the TTL ends.',
            'Only a pending approval can be decided: an approval already decided, or expired, is',
            'refused (the agent retries the call to ask again). Needs the operator role.',
            '',
            'Exit codes: 0 decided, 1 not found, already decided, expired or the API failed,',
            '2 wrong usage.',
          ].join('\n'),
        )
        .option('--reason <text>', 'why (shown to auditors, and to the agent for a denial)')
        .addOption(outputOption())
        .addHelpText(
          'after',
          [
            '',
            'Examples:',
            `  toolgate approvals ${verb} act_${'0'.repeat(32)} --reason "ticket OPS-42"`,
          ].join('\n'),
        ),
    ).action(async (name: string, options: DecideOptions) => {
      const { client } = await connect(ctx, options);
      const approval = await client
        .call('toolCallApprovals.decide', {
          params: { name },
          body: { decision, ...(options.reason !== undefined ? { reason: options.reason } : {}) },
        })
        .catch(notFound(name));
      printAs(ctx.io, options.output, approval, () => {
        const spec = approval.spec;
        return `toolcallapproval/${name} ${verb === 'approve' ? 'approved' : 'denied'} (${spec.tool} for ${identityOf(spec)}; stands until ${approval.status?.expiresAt ?? '?'})\n`;
      });
    });
  }
}

function notFound(name: string) {
  return (error: unknown): never => {
    if (error instanceof ApiError && error.httpStatus === 404) {
      throw new CliError(`ToolCallApproval "${name}" not found`);
    }
    throw error;
  };
}

function requestedAt(approval: ToolCallApproval): string {
  return approval.status?.requestedAt ?? approval.metadata.creationTimestamp ?? '';
}

function identityOf(spec: ToolCallApprovalSpec): string {
  const { human, service, session } = spec.identity;
  const who = human ?? service ?? '<anonymous>';
  return session ? `${who} (session ${session})` : who;
}

/** When the current state ends, as `in 5m` / `3m ago`. */
function expires(approval: ToolCallApproval, now: Date): string {
  const at = approval.status?.expiresAt;
  if (!at) return '<none>';
  return Date.parse(at) > now.getTime()
    ? `in ${age(now.toISOString(), new Date(at))}`
    : `${age(at, now)} ago`;
}

/** The state, with who decided when there was a decision. */
function stateCell(approval: ToolCallApproval, now: Date): string {
  const state = approvalState(approval, now.getTime());
  const conditions = approval.status?.conditions;
  const decided =
    findCondition(conditions, 'Approved')?.status === 'True' ||
    findCondition(conditions, 'Denied')?.status === 'True';
  return decided && approval.status?.decidedBy && state !== 'expired'
    ? `${state} (${approval.status?.decidedBy})`
    : state;
}

/** The table of `approvals list` and of `get toolcallapprovals`. */
export function approvalTable(items: ReadonlyArray<ToolCallApproval | StoredResource>): string {
  const now = new Date();
  return renderTable(
    ['NAME', 'STATE', 'TOOL', 'IDENTITY', 'GATEWAY', 'AGE', 'EXPIRES'],
    items.map((item) => {
      const approval = item as ToolCallApproval;
      return [
        approval.metadata.name,
        stateCell(approval, now),
        approval.spec.tool,
        identityOf(approval.spec),
        approval.spec.gateway,
        age(requestedAt(approval), now),
        expires(approval, now),
      ];
    }),
  );
}
