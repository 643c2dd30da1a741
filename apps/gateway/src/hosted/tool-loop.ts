import { performance } from 'node:perf_hooks';
import {
  type HostedCallEvidence,
  type HostedEvidence,
  type HostedOffer,
  type HostedPlan,
  type HostedRoundEvidence,
  hashLenient,
  type JsonObject,
  type JsonValue,
  type ProviderSurface,
  redactValue,
} from '@toolgate/core';
import { type UpstreamAnswer, UpstreamBody } from '../proxy/upstream-answer.ts';
import type { HostedExecutorRegistry } from './executor-registry.ts';
import { finalAnswer } from './final-answer.ts';
import type { HostedResult, HostedToolExecutor } from './hosted-executor.ts';
import { type RoundAnswer, type RoundCall, readAnswer } from './round-answer.ts';
import { nextRequest, type RoundResult } from './round-conversation.ts';
import { createToolInfoExecutor } from './tool-info-executor.ts';

/** One provider call, as the loop needs it (a `ProviderCall`). */
export interface LoopProviderCall {
  readonly answer: Promise<UpstreamAnswer>;
  readonly aborted: boolean;
  abort(): void;
}

export interface ToolLoopInput {
  surface: ProviderSurface;
  plan: HostedPlan;
  /** The mediated provider request (round 0), parsed and as bytes. */
  body: JsonObject;
  bytes: Buffer;
  stream: boolean;
  /** Sends one provider request (the same route, headers and credentials every round). */
  send(bytes: Buffer): LoopProviderCall;
  executors?: HostedExecutorRegistry;
  /** Argument paths redacted before hashing (the bundle's `redact`). */
  redact: ReadonlyArray<string>;
  /** performance.now() when the agent's request arrived: rounds' `started_ms` count from it. */
  startedAt: number;
  traceparent?: string;
}

type Exhausted = NonNullable<HostedEvidence['exhausted']>;

/** The budget's latency ran out (aborts the round in flight). */
class LatencyExhausted extends Error {}

/**
 * The gateway's tool loop for one agent request (docs/hosted-tools.md). Looks like one provider
 * call to the proxy: `answer` is the provider's last answer, replayed byte for byte (JSON or
 * SSE) for the proxy's usual enforcement and relay. Each answer is read whole; when the model
 * called gateway-hosted tools, the loop runs them (`tool_info` built in, HostedTools through
 * the registry), appends the calls and results in the provider's own shape and calls again,
 * until an answer has no hosted call or a budget ends the loop. Then the agent gets the last
 * answer, whose hosted calls the response side withholds with a note. Every round goes into
 * the request's receipt (`hosted`).
 */
export class ToolLoop implements LoopProviderCall {
  readonly answer: Promise<UpstreamAnswer>;
  private current: LoopProviderCall | undefined;
  private abortedByAgent = false;
  private readonly stop = new AbortController();
  private readonly rounds: HostedRoundEvidence[] = [];
  private exhausted: Exhausted | undefined;
  private deadline: NodeJS.Timeout | undefined;
  private readonly toolInfo: HostedToolExecutor;
  /** What the model wrote in hosted rounds (shown to the agent with `showHostedText`). */
  private hostedText = '';

  constructor(private readonly input: ToolLoopInput) {
    this.toolInfo = createToolInfoExecutor(input.plan.compacted);
    this.answer = this.run().finally(() => clearTimeout(this.deadline));
  }

  get aborted(): boolean {
    return this.abortedByAgent;
  }

  /** The agent went away: the round in flight and its hosted calls stop. */
  abort(): void {
    if (this.abortedByAgent) return;
    this.abortedByAgent = true;
    this.stop.abort(new Error('client disconnected'));
    this.current?.abort();
  }

  /** The receipt's `hosted` block: absent when the model called no hosted tool. */
  evidence(): HostedEvidence | undefined {
    if (this.rounds.length === 0 && this.exhausted === undefined) return undefined;
    const { budget } = this.input.plan;
    return {
      rounds: this.rounds,
      budget: {
        max_calls: budget.maxCalls,
        max_rounds: budget.maxRounds,
        max_added_latency_ms: budget.maxAddedLatencyMs,
      },
      ...(this.exhausted ? { exhausted: this.exhausted } : {}),
    };
  }

  private async run(): Promise<UpstreamAnswer> {
    const { input } = this;
    const { budget } = input.plan;
    let body = input.body;
    let call = this.send(input.bytes);
    let calls = 0;
    for (;;) {
      const answer = await call.answer;
      if (!this.readable(answer)) return answer;
      const text = await answer.body.text();
      const read = readAnswer(input.surface, text, input.stream);
      const last = this.rounds.at(-1);
      if (last && read?.usage) last.usage = read.usage;
      const hosted = read?.calls.filter((c) => input.plan.offers.has(c.name)) ?? [];
      if (read === undefined || hosted.length === 0) return this.final(answer, text);
      const exhausted =
        this.rounds.length >= budget.maxRounds
          ? 'max_rounds'
          : calls + hosted.length > budget.maxCalls
            ? 'max_calls'
            : this.stop.signal.aborted
              ? 'max_added_latency'
              : undefined;
      if (exhausted) {
        this.exhausted = exhausted;
        return this.final(answer, text);
      }
      this.startClock();
      calls += hosted.length;
      if (read.text.trim() !== '')
        this.hostedText += `${this.hostedText ? '\n\n' : ''}${read.text}`;
      const results = await this.runRound(hosted);
      if (this.abortedByAgent) throw abortError();
      if (this.stop.signal.aborted) {
        // The latency budget ended while the calls ran: the agent gets the answer that made them.
        this.exhausted = 'max_added_latency';
        return this.final(answer, text);
      }
      body = nextRequest(input.surface, body, read as RoundAnswer, results);
      const sent = performance.now();
      call = this.send(Buffer.from(JSON.stringify(body)));
      try {
        const next = await this.whole(call);
        (this.rounds.at(-1) as HostedRoundEvidence).upstream_ms = ms(performance.now() - sent);
        call = next;
      } catch (error) {
        if (!(error instanceof LatencyExhausted) || this.abortedByAgent) throw error;
        this.exhausted = 'max_added_latency';
        return this.final(answer, text);
      }
    }
  }

  /** The answer the agent gets: the last one, its echo scrubbed, hosted text shown per policy. */
  private final(answer: UpstreamAnswer, text: string): UpstreamAnswer {
    const { surface, plan, stream } = this.input;
    const shown = plan.budget.showHostedText ? this.hostedText : '';
    const offered = new Set(plan.offers.keys());
    return replay(answer, finalAnswer(surface, text, stream, offered, shown));
  }

  /** Whether an answer is one to read (not a provider error, a stream when one was asked for). */
  private readable(answer: UpstreamAnswer): boolean {
    if (answer.statusCode >= 400) return false;
    const type = String(answer.headers['content-type'] ?? '');
    return this.input.stream ? type.includes('text/event-stream') : !type.includes('event-stream');
  }

  private send(bytes: Buffer): LoopProviderCall {
    const call = this.input.send(bytes);
    this.current = call;
    if (this.abortedByAgent) call.abort();
    return call;
  }

  /**
   * Waits for a later round's answer whole (so the latency budget covers its body too) and
   * hands it on as an already-answered call. The budget's end aborts it as LatencyExhausted.
   */
  private async whole(call: LoopProviderCall): Promise<LoopProviderCall> {
    const onStop = () => call.abort();
    this.stop.signal.addEventListener('abort', onStop, { once: true });
    try {
      const answer = await call.answer;
      const text = await answer.body.text();
      return settled(replay(answer, text));
    } catch (error) {
      if (this.stop.signal.aborted && !this.abortedByAgent) throw new LatencyExhausted();
      throw error;
    } finally {
      this.stop.signal.removeEventListener('abort', onStop);
    }
  }

  /** The added-latency budget starts with the first hosted round. */
  private startClock(): void {
    if (this.deadline !== undefined) return;
    this.deadline = setTimeout(() => {
      this.stop.abort(new Error('hosted latency budget exhausted'));
    }, this.input.plan.budget.maxAddedLatencyMs);
    this.deadline.unref?.();
  }

  private async runRound(hosted: RoundCall[]): Promise<RoundResult[]> {
    const started = performance.now();
    const evidence: HostedCallEvidence[] = [];
    const round: HostedRoundEvidence = {
      round: this.rounds.length + 1,
      started_ms: ms(started - this.input.startedAt),
      duration_ms: 0,
      calls: evidence,
    };
    this.rounds.push(round);
    const results = await Promise.all(hosted.map((call) => this.runCall(call)));
    round.duration_ms = ms(performance.now() - started);
    for (const { call, result, offer } of results) {
      evidence.push(callEvidence(call, result, offer, this.input.redact));
    }
    return results.map(({ call, result }) => ({
      call,
      content: result.content,
      isError: result.isError,
    }));
  }

  private async runCall(
    call: RoundCall,
  ): Promise<{ call: RoundCall; result: HostedResult; offer: HostedOffer }> {
    const offer = this.input.plan.offers.get(call.name) as HostedOffer;
    const executor = offer.resource
      ? this.input.executors?.executorFor(offer.resource)
      : this.toolInfo;
    if (executor === undefined) {
      const content = `the hosted tool ${call.name} is not available on this gateway`;
      return {
        call,
        offer,
        result: { outcome: 'unavailable', isError: true, content, durationMs: 0 },
      };
    }
    const started = performance.now();
    try {
      const result = await executor.execute({
        id: call.id,
        name: call.name,
        arguments: call.arguments,
        signal: this.stop.signal,
        ...(this.input.traceparent ? { traceparent: this.input.traceparent } : {}),
      });
      return { call, offer, result };
    } catch {
      // Executors report failures as outcomes; one that throws still never reaches the agent.
      const content = `the hosted tool ${call.name} failed`;
      const durationMs = performance.now() - started;
      return { call, offer, result: { outcome: 'error', isError: true, content, durationMs } };
    }
  }
}

function callEvidence(
  call: RoundCall,
  result: HostedResult,
  offer: HostedOffer,
  redact: ReadonlyArray<string>,
): HostedCallEvidence {
  const answered = result.outcome !== 'timeout' && result.outcome !== 'unavailable';
  return {
    id: storableId(call.id),
    name: call.name,
    tool: offer.tool,
    executed_by: 'wardwright',
    fidelity: 'emulated',
    arguments_hash: hashLenient(redactValue(call.arguments as JsonValue, redact).value),
    ...(answered ? { result_hash: hashLenient(result.content) } : {}),
    is_error: result.isError,
    outcome: result.outcome,
    ...(result.status !== undefined ? { status: result.status } : {}),
    duration_ms: ms(result.durationMs),
    ...(result.redactedPaths?.length ? { redacted_paths: result.redactedPaths } : {}),
  };
}

/** Lone surrogates a receipt cannot hold, in a call id the provider chose. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** The provider's call id as a receipt holds it: bounded, well-formed. */
function storableId(id: string): string {
  return id.slice(0, 256).replace(LONE_SURROGATE, '\uFFFD');
}

/** An answer whose body was read: the same status and headers, the same bytes again. */
function replay(answer: UpstreamAnswer, text: string): UpstreamAnswer {
  const body = new UpstreamBody(
    () => {},
    () => {},
  );
  body.push(Buffer.from(text));
  body.finish();
  const { 'content-length': _length, ...headers } = answer.headers;
  return { statusCode: answer.statusCode, headers, body };
}

function settled(answer: UpstreamAnswer): LoopProviderCall {
  return { answer: Promise.resolve(answer), aborted: false, abort: () => {} };
}

function abortError(): Error {
  const error = new Error('client disconnected');
  error.name = 'AbortError';
  return error;
}

function ms(value: number): number {
  return Math.round(value * 1000) / 1000;
}
