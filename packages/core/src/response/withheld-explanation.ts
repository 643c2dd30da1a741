import type { ToolCallEvidence } from '../receipt/receipt-schema.ts';

/**
 * What the agent is told in place of a call a call-time rule withheld (deny, approval pending,
 * rate limited): the decision's message. Calls withheld because the model named a hidden or
 * undeclared tool stay silent, as before: the model was never offered them.
 */
export function withheldExplanation(evidence: ToolCallEvidence): string | undefined {
  if (evidence.policy_state === 'allowed') return undefined;
  return evidence.decision?.message;
}

/** Text content with explanations appended, a blank line between (OpenAI `message.content`). */
export function withExplanations(content: unknown, explanations: ReadonlyArray<string>): unknown {
  if (explanations.length === 0) return content;
  const added = explanations.join('\n\n');
  if (typeof content === 'string' && content !== '') return `${content}\n\n${added}`;
  if (content === null || content === undefined || content === '') return added;
  return content; // structured content (never seen in responses): left alone
}
