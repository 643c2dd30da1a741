import { describe, expect, it } from 'vitest';
import type { KubeObject } from './render.ts';
import { unknownFieldErrors } from './unknown-fields.ts';

describe('unknownFieldErrors', () => {
  const pod = (securityContext: Record<string, unknown>): KubeObject => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p' },
    spec: { containers: [{ name: 'c', image: 'i', securityContext }] },
  });

  it('passes known fields and names an unknown one, however deep, with its object', async () => {
    expect(await unknownFieldErrors([pod({ readOnlyRootFilesystem: true })])).toEqual([]);
    const errors = await unknownFieldErrors([
      pod({ readOnlyRootFilesystem: true }),
      pod({ readOnlyRootFilesytem: true }),
    ]);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(
      /^Pod\/p: .*'"readOnlyRootFilesytem"' does not exist in type 'ISecurityContext'/,
    );
  });

  it('refuses a value of the wrong type as well', async () => {
    const [error] = await unknownFieldErrors([pod({ runAsUser: '1000' })]);
    expect(error).toMatch(/^Pod\/p: Type 'string' is not assignable to type 'number'/);
  });
});
