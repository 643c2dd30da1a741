import { readFile } from 'node:fs/promises';
import { GatewayInput, IdentityInput, McpServerInput, MediationPolicyInput } from '@toolgate/core';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { DEMO_SEED } from './stack.ts';

const SCHEMAS = {
  Identity: IdentityInput,
  Gateway: GatewayInput,
  MediationPolicy: MediationPolicyInput,
  McpServer: McpServerInput,
} as const;

describe('the demo seed', () => {
  it('is valid, document by document, and registers the demo MCP server with rules for it', async () => {
    const documents = parseAllDocuments(await readFile(DEMO_SEED, 'utf8')).map(
      (doc) => doc.toJS() as { kind: keyof typeof SCHEMAS; metadata: { name: string } },
    );
    for (const document of documents) {
      const result = SCHEMAS[document.kind].safeParse(document);
      expect(result.error?.issues, `${document.kind}/${document.metadata.name}`).toBeUndefined();
    }
    const mcp = documents.find((d) => d.kind === 'McpServer');
    expect(mcp?.metadata.name).toBe('demo');
    const rules = documents
      .filter((d) => d.kind === 'MediationPolicy')
      .flatMap((d) => MediationPolicyInput.parse(d).spec.rules);
    expect(
      rules.filter((r) => String(r.match.name).startsWith('demo/')).map((r) => r.action),
    ).toEqual(['hide', 'require_approval']);
  });
});
