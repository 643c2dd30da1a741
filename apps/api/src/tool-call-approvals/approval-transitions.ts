import {
  type ApprovalDecisionInput,
  type ApprovalState,
  approvalState,
  type Condition,
  findCondition,
  type ToolCallApprovalSpec,
  type ToolCallApprovalStatus,
} from '@toolgate/core';
import type { StoredObject } from '../resources/stored-object.ts';

/**
 * The status an approval moves to at each step of its life, as pure functions of the current
 * object and `now`: the services call them under the row lock, so every transition is decided
 * on the state it replaces.
 */

type Status = ToolCallApprovalStatus & Record<string, unknown>;

const statusOf = (object: StoredObject): ToolCallApprovalStatus =>
  (object.status ?? {}) as ToolCallApprovalStatus;

const plus = (now: Date, seconds: number) => new Date(now.getTime() + seconds * 1000).toISOString();

/** {@link approvalState} of a stored object at `now`. */
export function stateAt(object: StoredObject, now: Date): ApprovalState {
  return approvalState({ status: statusOf(object) }, now.getTime());
}

/** A request no one has answered yet: open until `ttlSeconds` from now. */
export function pendingStatus(spec: ToolCallApprovalSpec, now: Date, requests = 1): Status {
  return {
    conditions: [],
    requestedAt: now.toISOString(),
    requests,
    expiresAt: plus(now, spec.ttlSeconds),
  };
}

/**
 * An expired approval asked for again: pending anew under the new request's spec. Its earlier
 * decision is dropped (it no longer stands); `Expired` stays, `False`, saying when it re-opened.
 */
export function reopenedStatus(
  current: StoredObject,
  spec: ToolCallApprovalSpec,
  requester: string,
  now: Date,
): Status {
  const before = statusOf(current);
  const reopened: Condition = {
    type: 'Expired',
    status: 'False',
    reason: 'Reopened',
    message: `requested again by ${requester}`,
    lastTransitionTime: now.toISOString(),
  };
  return {
    ...pendingStatus(spec, now, (before.requests ?? 1) + 1),
    conditions: [reopened],
  };
}

/** What an operator's decision makes of a pending approval; it stands for `ttlSeconds`. */
export function decidedStatus(
  current: StoredObject,
  input: ApprovalDecisionInput,
  operator: string,
  now: Date,
): Status {
  const before = statusOf(current);
  const approved = input.decision === 'Approve';
  const verb = approved ? 'approved' : 'denied';
  const decision: Condition = {
    type: approved ? 'Approved' : 'Denied',
    status: 'True',
    reason: approved ? 'ApprovedByOperator' : 'DeniedByOperator',
    message: input.reason ? `${verb} by ${operator}: ${input.reason}` : `${verb} by ${operator}`,
    lastTransitionTime: now.toISOString(),
  };
  const ttl = (current.spec as ToolCallApprovalSpec).ttlSeconds;
  return {
    ...before,
    conditions: [...withoutTypes(before.conditions, ['Approved', 'Denied']), decision],
    decidedBy: operator,
    decidedAt: now.toISOString(),
    expiresAt: plus(now, ttl),
  };
}

/**
 * Past `expiresAt` but not yet marked: the sweeper's work. Gateways already treat it as expired
 * by the clock; the condition makes it visible to watchers, the console and the audit log.
 */
export function needsExpiry(object: StoredObject, now: Date): boolean {
  const status = statusOf(object);
  if (findCondition(status.conditions, 'Expired')?.status === 'True') return false;
  return status.expiresAt !== undefined && Date.parse(status.expiresAt) <= now.getTime();
}

export function expiredStatus(current: StoredObject, now: Date): Status {
  const before = statusOf(current);
  const decided = ['Approved', 'Denied'].find(
    (type) => findCondition(before.conditions, type)?.status === 'True',
  );
  const what = decided ? `the ${decided === 'Approved' ? 'approval' : 'denial'}` : 'the request';
  const expired: Condition = {
    type: 'Expired',
    status: 'True',
    reason: 'TtlElapsed',
    message: `${what} ended at ${before.expiresAt}`,
    lastTransitionTime: now.toISOString(),
  };
  return {
    ...before,
    conditions: [...withoutTypes(before.conditions, ['Expired']), expired],
  };
}

function withoutTypes(conditions: ReadonlyArray<Condition> | undefined, types: string[]) {
  return (conditions ?? []).filter((condition) => !types.includes(condition.type));
}
