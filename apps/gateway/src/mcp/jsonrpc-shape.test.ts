import {
  JSONRPCRequestSchema,
  JSONRPCResultResponseSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { isRequestEnvelope, isResultFor } from './jsonrpc-shape.ts';

/** The hot path's envelope checks agree with the SDK's schemas they stand in for. */

const REQUESTS: unknown[] = [
  { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x' } },
  { jsonrpc: '2.0', id: 'a', method: 'ping' },
  { jsonrpc: '2.0', id: 0, method: 'tools/list', params: {} },
  { jsonrpc: '2.0', id: 1.5, method: 'ping' },
  { jsonrpc: '2.0', id: null, method: 'ping' },
  { jsonrpc: '2.0', id: true, method: 'ping' },
  { jsonrpc: '2.0', id: 2 ** 60, method: 'ping' },
  { jsonrpc: '1.0', id: 1, method: 'ping' },
  { id: 1, method: 'ping' },
  { jsonrpc: '2.0', id: 1, method: 5 },
  { jsonrpc: '2.0', id: 1, method: 'ping', params: [] },
  { jsonrpc: '2.0', id: 1, method: 'ping', params: null },
  { jsonrpc: '2.0', id: 1, method: 'ping', params: 'x' },
  { jsonrpc: '2.0', id: 1, method: 'ping', extra: 1 },
  { jsonrpc: '2.0', id: 1, result: {} },
  JSON.parse('{"jsonrpc":"2.0","id":1,"method":"ping","__proto__":{}}'),
  [{ jsonrpc: '2.0', id: 1, method: 'ping' }],
  null,
  'ping',
];

const RESULTS: unknown[] = [
  { jsonrpc: '2.0', id: 'toolgate-1', result: { content: [] } },
  { jsonrpc: '2.0', id: 'toolgate-1', result: {} },
  { jsonrpc: '2.0', id: 'toolgate-2', result: {} },
  { jsonrpc: '2.0', id: 'toolgate-1', result: [] },
  { jsonrpc: '2.0', id: 'toolgate-1', result: null },
  { jsonrpc: '2.0', id: 'toolgate-1', result: {}, error: {} },
  { jsonrpc: '2.0', id: 'toolgate-1' },
  { id: 'toolgate-1', result: {} },
  JSON.parse('{"jsonrpc":"2.0","id":"toolgate-1","result":{},"__proto__":1}'),
];

describe('JSON-RPC envelope checks', () => {
  it.each(REQUESTS.map((value) => [JSON.stringify(value), value]))(
    'request %s: as JSONRPCRequestSchema says',
    (_label, value) => {
      expect(isRequestEnvelope(value)).toBe(JSONRPCRequestSchema.safeParse(value).success);
    },
  );

  it.each(RESULTS.map((value) => [JSON.stringify(value), value]))(
    'result %s: as JSONRPCResultResponseSchema says, for our id only',
    (_label, value) => {
      const schema =
        JSONRPCResultResponseSchema.safeParse(value).success &&
        (value as { id: unknown }).id === 'toolgate-1';
      expect(isResultFor(value, 'toolgate-1')).toBe(schema);
    },
  );
});
