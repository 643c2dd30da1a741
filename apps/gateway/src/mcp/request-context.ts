import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { Context } from '@opentelemetry/api';
import type { ReceiptIdentity, RuleIdentity } from '@toolgate/core';

/**
 * What the HTTP layer learnt of an agent request (identity bound as on the LLM surfaces, when it
 * arrived), handed to the JSON-RPC handlers through the SDK's `authInfo`: the one per-request
 * value the SDK carries from `handleRequest` to a handler.
 */
export interface AgentRequestFacts {
  identity: ReceiptIdentity;
  rules: RuleIdentity;
  /** Wall-clock ms and performance.now() when the HTTP request arrived. */
  receivedAt: number;
  started: number;
  /** The HTTP request's `traceparent`, read when tracing is on. */
  traceParent?: Context;
}

const FACTS = 'toolgate';

export function authInfoFor(facts: AgentRequestFacts): AuthInfo {
  // The token itself stays out: nothing downstream needs it, and AuthInfo may be logged by the SDK.
  return { token: '', clientId: 'toolgate-agent', scopes: [], extra: { [FACTS]: facts } };
}

export function factsOf(authInfo: AuthInfo | undefined): AgentRequestFacts {
  const facts = authInfo?.extra?.[FACTS] as AgentRequestFacts | undefined;
  // Every request reaches the transport through the HTTP layer, which always sets them.
  if (facts === undefined) throw new Error('MCP request without agent facts');
  return facts;
}
