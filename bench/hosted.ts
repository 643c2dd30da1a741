import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { compileBundle, mediateRequest } from '@toolgate/core';
import { startTestGateway } from '../apps/gateway/src/testing/test-gateway.ts';
import { type BenchResult, median } from './measure.ts';

/**
 * `pnpm bench hosted`: progressive disclosure measured (docs/hosted-tools.md). A 200-tool
 * catalog shaped like public MCP servers' tool lists (bench/fixtures/mcp-catalog.json, built by
 * build-mcp-catalog.ts) advertised whole and compacted: the tool-schema bytes and the whole
 * prompt's bytes the provider receives, the mock provider's token count of the same request,
 * and what one `tool_info` round costs in latency, through a real gateway in front of the mock
 * (baseline and candidate interleaved in the same process). Target: ≥ 70% fewer tool-schema
 * bytes.
 */

const TARGET_SAVING = 0.7;
/**
 * The setting the target is judged at: names and parameter names only, descriptions on demand
 * (tool_info's summary gives them). Every setting is printed with its own PASS/FAIL.
 */
const HEADLINE = 0;
const ROUNDS = 40;

interface CatalogTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

function catalog(): CatalogTool[] {
  const file = join(import.meta.dirname, 'fixtures', 'mcp-catalog.json');
  return (JSON.parse(readFileSync(file, 'utf8')) as { tools: CatalogTool[] }).tools;
}

function chatRequest(tools: CatalogTool[], content: string) {
  return {
    model: 'gpt-4o-mini',
    messages: [
      { role: 'system', content: 'You are a careful engineering assistant.' },
      { role: 'user', content },
    ],
    tools: tools.map((t) => ({
      type: 'function',
      function: { name: t.name, description: t.description, parameters: t.inputSchema },
    })),
  };
}

const compactPolicy = (descriptionMax?: number) => ({
  name: 'progressive-disclosure',
  spec: {
    mode: 'execute' as const,
    rules: [
      {
        id: 'compact-all',
        action: 'compact' as const,
        match: { name: '*' },
        ...(descriptionMax !== undefined ? { description_max: descriptionMax } : {}),
      },
    ],
  },
});

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

function measureBytes(tools: CatalogTool[], descriptionMax?: number) {
  const body = chatRequest(tools, 'hello');
  const bundle = compileBundle({
    policies: [{ name: 'p', generation: 1, spec: compactPolicy(descriptionMax).spec }],
  });
  const result = mediateRequest(bundle, { surface: 'openai-chat', body });
  const before = bytes(body.tools);
  const after = bytes(result.body.tools);
  return {
    before,
    after,
    saving: 1 - after / before,
    promptBefore: bytes(body),
    promptAfter: bytes(result.body),
  };
}

export async function runHostedBench(): Promise<BenchResult> {
  const tools = catalog();
  const lines: string[] = [];
  lines.push(`catalog: ${tools.length} tools (bench/fixtures/mcp-catalog.json), OpenAI Chat form`);
  lines.push('tool-schema bytes (tool_info included) and whole-prompt bytes, per compact setting:');
  const settings: Array<[string, number | undefined]> = [
    ['descriptions kept', undefined],
    ['description_max 80', 80],
    ['description_max 40', 40],
    ['description_max 0 (names and parameter names only)', 0],
  ];
  let headline = measureBytes(tools, HEADLINE);
  for (const [label, max] of settings) {
    const m = measureBytes(tools, max);
    if (max === HEADLINE) headline = m;
    lines.push(
      `  ${label}: tools ${m.before} → ${m.after} B (${pct(m.saving)} fewer, ${m.saving >= TARGET_SAVING ? 'PASS' : 'FAIL'}); prompt ${m.promptBefore} → ${m.promptAfter} B (${pct(1 - m.promptAfter / m.promptBefore)} fewer)`,
    );
  }

  const gw = await startTestGateway();
  try {
    const say = (script: object) => `mock: ${JSON.stringify(script)}`;
    const post = async (content: string) => {
      const started = performance.now();
      const response = await fetch(`${gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench' },
        body: JSON.stringify(chatRequest(tools, content)),
      });
      const json = (await response.json()) as { usage?: { prompt_tokens?: number } };
      if (response.status !== 200) throw new Error(`gateway answered ${response.status}`);
      return { ms: performance.now() - started, tokens: json.usage?.prompt_tokens ?? 0 };
    };
    const direct = say({ text: 'done' });
    const oneRound = say({
      rounds: [
        { call: 'tool_info', arguments: { name: 'create_pull_request', include_schema: true } },
        { text: 'done' },
      ],
    });
    await gw.applyPolicies([]);
    const tokensWhole = (await post(direct)).tokens;
    await gw.applyPolicies([compactPolicy(80)]);
    const tokens80 = (await post(direct)).tokens;
    await gw.applyPolicies([compactPolicy(HEADLINE)]);
    const tokensCompact = (await post(direct)).tokens;
    lines.push(
      `mock prompt tokens (whole request, through the gateway): ${tokensWhole} → ${tokens80} with description_max 80 (${pct(1 - tokens80 / tokensWhole)} fewer), ${tokensCompact} with description_max ${HEADLINE} (${pct(1 - tokensCompact / tokensWhole)} fewer)`,
    );
    // Latency: the same compacted request answered at once vs after one tool_info round.
    for (let i = 0; i < 10; i++) {
      await post(direct);
      await post(oneRound);
    }
    const base: number[] = [];
    const cand: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      base.push((await post(direct)).ms);
      cand.push((await post(oneRound)).ms);
    }
    const b = median(base);
    const c = median(cand);
    lines.push(
      `one tool_info round (gateway + mock, loopback, ${ROUNDS} interleaved): ${b.toFixed(2)} ms → ${c.toFixed(2)} ms (+${(c - b).toFixed(2)} ms, ×${(c / b).toFixed(2)}), not a target`,
    );
  } finally {
    await gw.close();
  }
  const passed = headline.saving >= TARGET_SAVING;
  lines.push(
    `${passed ? 'PASS' : 'FAIL'}: ${pct(headline.saving)} fewer tool-schema bytes with description_max ${HEADLINE} (target ≥ ${pct(TARGET_SAVING)}; the other settings above have their own verdict)`,
  );
  return { name: 'hosted tools: compacted catalog and one tool_info round', lines, passed };
}
