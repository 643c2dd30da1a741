import {
  approvalState,
  type IdentityBinding,
  type KnownApproval,
  type ToolCallApproval,
} from '@toolgate/core';

/** How strongly each binding proves who called: an approval is used only by as strong a proof. */
const PROOF: Record<IdentityBinding, number> = {
  verified: 3,
  claimed: 2,
  unverified: 1,
  rejected: 0,
};

interface Entry {
  approval: ToolCallApproval;
  binding: IdentityBinding;
}

/**
 * The approvals this gateway knows, by action id: filled by the watch on the API
 * (approval-watch.ts), read on the hot path. The action id already covers the tool, the
 * arguments and the identity's names; the book adds the proof: an approval given to a call a
 * token proved is not used by a request that only claims the same names in headers.
 */
export class ApprovalBook {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Replaces everything (after a fresh list). */
  reset(items: ReadonlyArray<ToolCallApproval>): void {
    this.entries.clear();
    for (const item of items) this.put(item);
  }

  put(approval: ToolCallApproval): void {
    this.entries.set(approval.metadata.name, {
      approval,
      binding: approval.spec.identity.binding,
    });
  }

  remove(name: string): void {
    this.entries.delete(name);
  }

  get size(): number {
    return this.entries.size;
  }

  /** The approval as a request proven `binding` may use it, judged at the clock's now. */
  lookup(actionId: string, binding: IdentityBinding): KnownApproval | undefined {
    const entry = this.entries.get(actionId);
    if (entry === undefined || PROOF[binding] < PROOF[entry.binding]) return undefined;
    const state = approvalState(entry.approval, this.now());
    const status = entry.approval.status;
    return {
      state,
      ...(status?.decidedBy ? { decidedBy: status.decidedBy } : {}),
      ...(state === 'denied' ? reasonOf(entry.approval) : {}),
    };
  }

  /** Expired entries are dropped (a new request re-opens the approval in the API). */
  prune(): void {
    const now = this.now();
    for (const [name, entry] of this.entries) {
      if (approvalState(entry.approval, now) === 'expired') this.entries.delete(name);
    }
  }
}

function reasonOf(approval: ToolCallApproval): { reason?: string } {
  const denied = approval.status?.conditions.find((c) => c.type === 'Denied');
  const reason = denied?.message.replace(/^denied by [^:]*:?\s*/i, '').trim();
  return reason ? { reason } : {};
}
