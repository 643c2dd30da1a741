import { describe, expect, it } from 'vitest';
import { OtelEnv } from './otel-env.ts';
import { DEFAULT_TRACES_URL, displayedUrl, tracingSettings } from './tracing-settings.ts';

const settings = (env: Record<string, string>) =>
  tracingSettings(OtelEnv.parse(env), 'toolgate-test');

describe('when tracing is on', () => {
  it.each([
    ['nothing set', {}],
    ['only a service name', { OTEL_SERVICE_NAME: 'edge' }],
    ['only headers', { OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20x' }],
    ['an empty endpoint (unset)', { OTEL_EXPORTER_OTLP_ENDPOINT: '' }],
    ['exporter none', { OTEL_TRACES_EXPORTER: 'none' }],
    [
      'exporter none beside an endpoint',
      { OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' },
    ],
    [
      'the SDK disabled',
      { OTEL_SDK_DISABLED: 'TRUE', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' },
    ],
  ])('off: %s', (_case, env) => {
    expect(settings(env)).toBeUndefined();
  });

  it.each([
    ['exporter otlp', { OTEL_TRACES_EXPORTER: 'otlp' }, DEFAULT_TRACES_URL],
    [
      'a base endpoint',
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318/' },
      'http://c:4318/v1/traces',
    ],
    [
      'a traces endpoint, used as it is',
      { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://c/otlp/traces' },
      'https://c/otlp/traces',
    ],
    [
      'both endpoints: the traces one wins',
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://base:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://traces:4318/v1/traces',
      },
      'http://traces:4318/v1/traces',
    ],
    [
      'SDK disabled false',
      { OTEL_SDK_DISABLED: 'false', OTEL_TRACES_EXPORTER: 'otlp' },
      DEFAULT_TRACES_URL,
    ],
  ])('on: %s', (_case, env, url) => {
    expect(settings(env)?.url).toBe(url);
  });
});

describe('the settings', () => {
  it('defaults: http/protobuf, parent-based always on, the app as service.name', () => {
    expect(settings({ OTEL_TRACES_EXPORTER: 'otlp' })).toEqual({
      url: DEFAULT_TRACES_URL,
      protocol: 'http/protobuf',
      headers: {},
      timeoutMs: 10_000,
      compression: 'none',
      resource: { 'service.name': 'toolgate-test' },
      sampler: { name: 'parentbased_always_on', ratio: 1 },
      batch: {
        scheduleDelayMs: 5000,
        exportTimeoutMs: 30_000,
        maxQueueSize: 2048,
        maxBatchSize: 512,
      },
    });
  });

  it('takes the traces-specific variable over the general one', () => {
    const resolved = settings({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_TIMEOUT: '5000',
      OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: '2000',
      OTEL_EXPORTER_OTLP_COMPRESSION: 'gzip',
      OTEL_EXPORTER_OTLP_HEADERS: 'x-tenant=acme,authorization=Basic%20abc',
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'authorization=Bearer%20t%3Dk',
    });
    expect(resolved).toMatchObject({
      protocol: 'http/json',
      timeoutMs: 2000,
      compression: 'gzip',
      headers: { 'x-tenant': 'acme', authorization: 'Bearer t=k' },
    });
  });

  it('names the service by OTEL_SERVICE_NAME, else by the resource attributes, else the app', () => {
    const on = { OTEL_TRACES_EXPORTER: 'otlp' };
    const attrs = 'service.name=from-attrs,deployment.environment.name=prod';
    expect(settings({ ...on, OTEL_RESOURCE_ATTRIBUTES: attrs })?.resource).toEqual({
      'service.name': 'from-attrs',
      'deployment.environment.name': 'prod',
    });
    expect(
      settings({ ...on, OTEL_RESOURCE_ATTRIBUTES: attrs, OTEL_SERVICE_NAME: 'edge-1' })?.resource[
        'service.name'
      ],
    ).toBe('edge-1');
  });

  it('reads the sampler and its ratio, and bounds the batch by the queue', () => {
    expect(
      settings({
        OTEL_TRACES_EXPORTER: 'otlp',
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0.25',
        OTEL_BSP_MAX_QUEUE_SIZE: '100',
      }),
    ).toMatchObject({
      sampler: { name: 'parentbased_traceidratio', ratio: 0.25 },
      batch: { maxQueueSize: 100, maxBatchSize: 100 },
    });
  });
});

describe('the environment, parsed at boot', () => {
  it.each([
    ['OTEL_EXPORTER_OTLP_PROTOCOL', 'grpc', /grpc is not supported/],
    ['OTEL_TRACES_EXPORTER', 'zipkin', /otlp or none/],
    ['OTEL_TRACES_EXPORTER', 'otlp,console', /otlp or none/],
    ['OTEL_EXPORTER_OTLP_ENDPOINT', 'not a url', /URL/i],
    ['OTEL_EXPORTER_OTLP_HEADERS', 'no-equals-sign', /key=value/],
    ['OTEL_TRACES_SAMPLER', 'sometimes', /Invalid option/i],
    ['OTEL_TRACES_SAMPLER_ARG', '2', /<=1/],
  ])('refuses %s=%s', (name, value, message) => {
    const result = OtelEnv.safeParse({ [name]: value });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual([name]);
    expect(result.error?.issues[0]?.message).toMatch(message);
  });

  it('shows an endpoint without its credentials or query', () => {
    expect(displayedUrl('https://user:secret@collector:4318/v1/traces?token=abc')).toBe(
      'https://collector:4318/v1/traces',
    );
  });
});
