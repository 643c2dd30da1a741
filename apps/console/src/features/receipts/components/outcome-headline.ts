import type { CalledTool } from '@toolgate/contract';
import type { Receipt } from '@toolgate/core';
import type { Tone } from '../../../shared/ui/badges.tsx';

/**
 * What happened to a request, in one line: `blocked: create_pull_request (hidden)`, `withheld:
 * send_email (approval pending)`, `error 502 upstream timeout`, `ok`. The policy's decision comes
 * first: a blocked call inside a 200 answer is a block, never a green "200".
 */
export interface OutcomeHeadline {
  tone: Tone;
  text: string;
  /** The same without names, for a narrow column: `blocked`, `withheld`, `error 502`, `ok`. */
  short: string;
}

/** Why a call was withheld, as people say it (`rule:<id>` → `rule <id>`). */
export function reasonText(reason: string | undefined): string | undefined {
  if (reason === undefined) return undefined;
  if (reason === 'not_declared') return 'not declared';
  const rule = /^(rule|rule_error):(.+)$/.exec(reason);
  if (rule) return rule[1] === 'rule' ? `rule ${rule[2]}` : `rule ${rule[2]} failed`;
  return reason;
}

/** `a (hidden), b (rule no-mail)`; `why` overrides the calls' own reasons. */
function named(calls: ReadonlyArray<CalledTool>, why?: string): string {
  return calls
    .map((call) => {
      const reason = why ?? reasonText(call.reason);
      return reason ? `${call.name} (${reason})` : call.name;
    })
    .join(', ');
}

/** The headline from the tools called and the status (what a list row has). */
export function outcomeHeadline(input: {
  calls: ReadonlyArray<CalledTool>;
  status: number;
  error?: string | undefined;
}): OutcomeHeadline {
  const blocked = input.calls.filter((call) => call.state === 'blocked');
  const withheld = input.calls.filter((call) => call.state === 'deferred');
  const parts: string[] = [];
  const short: string[] = [];
  if (blocked.length > 0) {
    parts.push(`blocked: ${named(blocked)}`);
    short.push('blocked');
  }
  if (withheld.length > 0) {
    parts.push(`withheld: ${named(withheld, 'approval pending')}`);
    short.push('withheld');
  }
  const failed = input.status < 200 || input.status > 299;
  if (failed) {
    parts.push(`error ${input.status}${input.error ? ` ${input.error}` : ''}`);
    short.push(`error ${input.status}`);
  }
  if (parts.length === 0) return { tone: 'good', text: 'ok', short: 'ok' };
  const tone: Tone = blocked.length > 0 || failed ? 'bad' : 'warn';
  return { tone, text: parts.join(' · '), short: short.join(' · ') };
}

/** A receipt's response evidence as the tools called (the list's shape). */
export function receiptCalls(receipt: Receipt): CalledTool[] {
  const response = receipt.response;
  if (!response) return [];
  return [
    ...response.tool_calls.map((call) => ({
      name: call.name,
      state: call.policy_state,
      ...(call.reason !== undefined ? { reason: call.reason } : {}),
    })),
    ...response.hosted_tool_events.map((event) => ({
      name: event.name,
      state: event.policy_state,
      hosted: true,
    })),
  ];
}

export function receiptHeadline(receipt: Receipt): OutcomeHeadline {
  return outcomeHeadline({
    calls: receiptCalls(receipt),
    status: receipt.outcome.status,
    error: receipt.outcome.error,
  });
}
