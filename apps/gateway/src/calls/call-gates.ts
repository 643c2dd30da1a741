import {
  type CallGate,
  MAX_APPROVAL_ARGUMENTS_BYTES,
  type ReceiptIdentity,
  type Surface,
  TokenBuckets,
  type ToolCallApprovalSpec,
} from '@toolgate/core';
import type { ApprovalBook } from './approval-book.ts';

/** Where approval requests go (approval-requests.ts, or a test's list). */
export interface ApprovalSink {
  submit(spec: ToolCallApprovalSpec): void;
}

export interface CallGatesOptions {
  gateway: string;
  book: ApprovalBook;
  requests: ApprovalSink;
  buckets?: TokenBuckets;
}

/** What the gateway knows of the request a gate is for. */
export interface GateRequest {
  receiptId: string;
  surface: Surface;
  identity: ReceiptIdentity;
}

/**
 * The gateway's state for call-time rules: the approvals it knows (synced from the API) and
 * its rate-limit buckets, shared by every request. `forRequest` gives the engine a
 * {@link CallGate} that knows the request: its identity's proof (an approval is only used by
 * as strong a proof as it was given to) and, for the approval it asks for, the receipt.
 */
export class CallGates {
  readonly buckets: TokenBuckets;

  constructor(private readonly options: CallGatesOptions) {
    this.buckets = options.buckets ?? new TokenBuckets();
  }

  forRequest(request: GateRequest): CallGate {
    const { book, requests, gateway } = this.options;
    const { identity } = request;
    return {
      approval: (actionId) => book.lookup(actionId, identity.binding),
      requestApproval: (call) => {
        // Pending in the API already (the watch said so): nothing to ask. Unknown or expired:
        // ask (the API creates it, or re-opens an expired one).
        if (book.lookup(call.actionId, identity.binding)?.state === 'pending') return;
        requests.submit({
          actionId: call.actionId,
          tool: call.tool,
          ...boundedArguments(call.arguments),
          argumentsHash: call.argumentsHash,
          identity: {
            ...(identity.human !== undefined ? { human: identity.human } : {}),
            ...(identity.service !== undefined ? { service: identity.service } : {}),
            ...(identity.session !== undefined ? { session: identity.session } : {}),
            binding: identity.binding,
          },
          gateway,
          receiptId: request.receiptId,
          surface: request.surface,
          rule: call.rule,
          ttlSeconds: Math.max(1, Math.round(call.ttlMs / 1000)),
        });
      },
      take: (list) => this.buckets.take(list),
    };
  }
}

/** Arguments over the approval's bound are replaced by a note: the hash still names them. */
function boundedArguments(args: unknown): {
  arguments: ToolCallApprovalSpec['arguments'];
  argumentsTruncated?: true;
} {
  const bytes = Buffer.byteLength(JSON.stringify(args) ?? 'null');
  if (bytes <= MAX_APPROVAL_ARGUMENTS_BYTES) {
    return { arguments: args as ToolCallApprovalSpec['arguments'] };
  }
  return {
    arguments: { note: `arguments of ${bytes} bytes: see argumentsHash` },
    argumentsTruncated: true,
  };
}
