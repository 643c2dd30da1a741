import { describe, expect, it } from 'vitest';
import { ValidationError } from '../errors.ts';
import { parseOrThrow } from '../validate.ts';
import { HostedToolInput } from './hosted-tool.ts';

const hosted = (spec: Record<string, unknown>) => ({
  apiVersion: 'toolgate.dev/v1',
  kind: 'HostedTool',
  metadata: { name: 'approved-web-search' },
  spec,
});

const valid = {
  tool: {
    name: 'approved_web_search',
    description: 'Search the web through the approved backend.',
    parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
  },
  endpoint: {
    url: 'https://search.internal.example/v1/search',
    headers: [{ name: 'Authorization', secretRef: { env: 'SEARCH_TOKEN' } }],
  },
  redact: ['debug.token'],
};

function failingFields(input: unknown): string[] {
  try {
    parseOrThrow(HostedToolInput, input, 'HostedTool');
    return [];
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    return error.causes.map((cause) => cause.field);
  }
}

describe('HostedTool', () => {
  it('accepts a tool with an endpoint and fills the endpoint defaults', () => {
    const parsed = parseOrThrow(HostedToolInput, hosted(valid), 'HostedTool');
    expect(parsed.spec.endpoint).toMatchObject({
      timeout: '10s',
      retries: 0,
      maxResponseBytes: 256 * 1024,
    });
  });

  it('names the field of each mistake', () => {
    expect(
      failingFields(
        hosted({
          ...valid,
          tool: { ...valid.tool, name: 'web search' },
          endpoint: {
            url: 'ftp://x.example/',
            timeout: '5m',
            retries: 9,
            headers: [{ name: 'Authorization', value: 'Bearer abc' }],
          },
        }),
      ).sort(),
    ).toEqual([
      'spec.endpoint.headers[0].value',
      'spec.endpoint.retries',
      'spec.endpoint.timeout',
      'spec.endpoint.url',
      'spec.tool.name',
    ]);
  });

  it('refuses unknown fields and a missing endpoint', () => {
    expect(failingFields(hosted({ tool: valid.tool, extra: 1 }))).toEqual(
      expect.arrayContaining(['spec.endpoint', 'spec']),
    );
  });
});
