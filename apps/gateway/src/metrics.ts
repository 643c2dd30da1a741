import { Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Everything `/metrics` exposes, in one place (Prometheus text format via prom-client). */
export function createMetrics() {
  const registry = new Registry();
  const latencyBuckets = [
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60,
  ];
  return {
    registry,
    requests: new Counter({
      name: 'toolgate_gateway_requests_total',
      help: 'Agent requests, by surface and HTTP status',
      labelNames: ['surface', 'status'] as const,
      registers: [registry],
    }),
    upstreamSeconds: new Histogram({
      name: 'toolgate_gateway_upstream_seconds',
      help: 'Time from sending upstream to the last byte of the response',
      labelNames: ['surface'] as const,
      buckets: latencyBuckets,
      registers: [registry],
    }),
    mediationSeconds: new Histogram({
      name: 'toolgate_gateway_mediation_seconds',
      help: 'Time from the request body read to the provider request sent (parse, identity, mediation, serialization)',
      labelNames: ['surface'] as const,
      buckets: [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.05],
      registers: [registry],
    }),
    blockedCalls: new Counter({
      name: 'toolgate_gateway_blocked_tool_calls_total',
      help: 'Tool calls the policy kept from the agent',
      labelNames: ['surface'] as const,
      registers: [registry],
    }),
    withheldCalls: new Counter({
      name: 'toolgate_gateway_withheld_tool_calls_total',
      help: 'Tool calls a call-time rule withheld, by outcome (deny, approval_required, rate_limited) and rule id',
      labelNames: ['outcome', 'rule'] as const,
      registers: [registry],
    }),
    mcpSessions: new Gauge({
      name: 'toolgate_gateway_mcp_sessions',
      help: 'Open MCP sessions (agent sessions on /mcp/<server>, each with its upstream session)',
      registers: [registry],
    }),
    mcpRequests: new Counter({
      name: 'toolgate_gateway_mcp_requests_total',
      help: 'MCP JSON-RPC requests the gateway answered, by method and outcome (ok, error)',
      labelNames: ['method', 'outcome'] as const,
      registers: [registry],
    }),
    mcpToolCalls: new Counter({
      name: 'toolgate_gateway_mcp_tool_calls_total',
      help: 'MCP tools/call requests, by outcome (ok, tool_error, refused, withheld, upstream_error, not_recorded)',
      labelNames: ['server', 'outcome'] as const,
      registers: [registry],
    }),
    mcpDrifts: new Counter({
      name: 'toolgate_gateway_mcp_drifted_tools_total',
      help: 'MCP tool lists fetched with a tool whose definition differs from its pin, by server and action (warned, blocked)',
      labelNames: ['server', 'action'] as const,
      registers: [registry],
    }),
    approvalsKnown: new Gauge({
      name: 'toolgate_gateway_approvals_known',
      help: 'ToolCallApprovals the gateway holds from its watch on the API',
      registers: [registry],
    }),
    approvalSyncFailures: new Counter({
      name: 'toolgate_gateway_approval_sync_failures_total',
      help: 'Failed approval list/watch attempts (retried with backoff; known approvals stay in force)',
      registers: [registry],
    }),
    approvalRequestsDropped: new Counter({
      name: 'toolgate_gateway_approval_requests_dropped_total',
      help: 'Approval requests dropped because the queue to the API was full (the agent retry asks again)',
      registers: [registry],
    }),
    spoolDepth: new Gauge({
      name: 'toolgate_gateway_spool_depth',
      help: 'Receipts in the spool not yet acknowledged by the API',
      registers: [registry],
    }),
    spoolDropped: new Gauge({
      name: 'toolgate_gateway_spool_dropped',
      help: 'Receipts dropped because the spool was full (SPOOL_FULL=drop) since start',
      registers: [registry],
    }),
    spoolFull: new Gauge({
      name: 'toolgate_gateway_spool_full',
      help: 'Whether the receipt spool is full (1): requests refused or receipts dropped',
      registers: [registry],
    }),
    spoolRejected: new Counter({
      name: 'toolgate_gateway_spool_rejected_requests_total',
      help: 'Requests refused because the spool was full (SPOOL_FULL=reject)',
      registers: [registry],
    }),
    bundleAgeSeconds: new Gauge({
      name: 'toolgate_gateway_bundle_age_seconds',
      help: 'Seconds since the active bundle was applied',
      registers: [registry],
    }),
    syncFailures: new Counter({
      name: 'toolgate_gateway_sync_failures_total',
      help: 'Failed bundle syncs, by reason (unreachable, rejected)',
      labelNames: ['reason'] as const,
      registers: [registry],
    }),
    shippedReceipts: new Counter({
      name: 'toolgate_gateway_shipped_receipts_total',
      help: 'Receipts the API acknowledged, by result (created, duplicate)',
      labelNames: ['result'] as const,
      registers: [registry],
    }),
    shipFailures: new Counter({
      name: 'toolgate_gateway_ship_failures_total',
      help: 'Failed receipt batch shipments (retried with backoff)',
      registers: [registry],
    }),
    receiptsQuarantined: new Counter({
      name: 'toolgate_gateway_receipts_quarantined_total',
      help: 'Receipts the API refused for good, moved to the quarantine file since start, by reason',
      labelNames: ['reason'] as const,
      registers: [registry],
    }),
    quarantinedReceipts: new Gauge({
      name: 'toolgate_gateway_quarantined_receipts',
      help: 'Receipts in the quarantine file (kept across restarts; see Gateway.status)',
      registers: [registry],
    }),
  };
}
export type GatewayMetrics = ReturnType<typeof createMetrics>;
