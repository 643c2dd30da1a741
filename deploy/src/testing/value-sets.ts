/**
 * The value sets the chart is rendered with in the tests: each a way people install it.
 * `DATABASE_PASSWORD` is in the one URL the chart is given, so a test can tell whether it leaks
 * anywhere but the Secret.
 */

export const DATABASE_PASSWORD = 'pw-k8s-chart-test-7f3a';

export interface ValueSet {
  name: string;
  values: Record<string, unknown>;
}

export const VALUE_SETS: ValueSet[] = [
  {
    name: 'defaults (an existing database Secret)',
    values: { database: { existingSecret: 'toolgate-database' } },
  },
  {
    name: 'database URL given (Secret created), autoscaling off',
    values: {
      database: {
        url: `postgres://toolgate:${DATABASE_PASSWORD}@db.example.internal:5432/toolgate`,
      },
      gateway: { replicas: 3, autoscaling: { enabled: false } },
    },
  },
  {
    name: 'several gateway groups: PVC spools, an emptyDir one, provider keys and MCP credentials',
    values: {
      database: { existingSecret: 'pg', existingSecretKey: 'DATABASE_URL' },
      api: { replicas: 3, env: { BODY_LIMIT: 16777216, WATCH_HISTORY: '20000' } },
      gateway: {
        labels: { env: 'prod' },
        providerKeys: { existingSecret: 'provider-keys' },
        envFrom: [{ secretRef: { name: 'mcp-credentials' } }],
      },
      gateways: [
        { name: 'edge' },
        {
          name: 'eu',
          labels: { region: 'eu' },
          identity: 'gw-eu',
          tokenSecret: { name: 'eu-gateway-token', key: 'API_TOKEN' },
          spool: { storageClassName: 'fast-ssd', size: '20Gi' },
          autoscaling: { minReplicas: 1, maxReplicas: 3 },
          env: { SPOOL_FSYNC: 'request' },
        },
        {
          name: 'scratch',
          spool: { type: 'emptyDir' },
          autoscaling: { enabled: false },
          replicas: 1,
          podDisruptionBudget: { enabled: false },
          upstream: { openaiBaseUrl: 'http://mock-provider:8090' },
        },
      ],
    },
  },
  {
    name: 'ingress, registration Job, own registry and tag, no console',
    values: {
      image: { registry: 'registry.example.com/platform/', tag: '1.2.3' },
      database: { existingSecret: 'toolgate-database' },
      console: { enabled: false },
      api: { image: { tag: '1.2.4' } },
      registration: { job: { enabled: true, operatorTokenSecret: { name: 'toolgate-operator' } } },
      ingress: {
        enabled: true,
        className: 'nginx',
        apiHost: 'toolgate-api.example.com',
        tls: [{ secretName: 'toolgate-tls', hosts: ['toolgate-api.example.com'] }],
      },
      gateways: [{ name: 'edge', ingressHost: 'llm.example.com' }],
    },
  },
];
