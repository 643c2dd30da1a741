import type { Receipt } from '@toolgate/core';
import { describe, expect, it } from 'vitest';
import { toolChanges } from './tool-changes.ts';

const h = (c: string) => `sha256:${c.repeat(64)}`;
const tool = (name: string, hash: string) => ({
  declared_by: 'agent' as const,
  name,
  type: 'function',
  schema_hash: hash,
});

describe('toolChanges', () => {
  it('finds hidden, changed, renamed and added tools', () => {
    const receipt = {
      wardwright_tool_mediation: {
        schema: 'wardwright.tool_mediation.v1',
        mode: 'patch',
        applied_rules: [],
        original_tools: [
          tool('keep', h('a')),
          tool('gone', h('b')),
          tool('aug', h('c')),
          tool('srv/x', h('d')),
        ],
        provider_visible_tools: [
          tool('keep', h('a')),
          tool('aug', h('e')),
          tool('srv_x', h('d')),
          tool('hosted', h('f')),
        ],
      },
      tools: [{ name: 'srv/x', provider_name: 'srv_x' }],
    } as unknown as Receipt;
    expect(toolChanges(receipt).map((c) => [c.name, c.kind])).toEqual([
      ['gone', 'hidden'],
      ['aug', 'changed'],
      ['srv/x', 'renamed'],
      ['hosted', 'added'],
    ]);
  });

  it('is empty without a mediation block', () => {
    expect(toolChanges({ tools: [] } as unknown as Receipt)).toEqual([]);
  });
});
