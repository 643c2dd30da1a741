import { type BundleHostedTool, parseDuration } from '@toolgate/core';
import type { HostedResult, HostedToolExecutor } from '../hosted/hosted-executor.ts';

/**
 * TEST ONLY: a minimal HostedTool executor for the tool loop's tests — POSTs the call's
 * arguments to the endpoint with `fetch`, bounded by the endpoint's timeout and the loop's
 * signal. No retries, headers, size limit or redaction: the gateway's real executor is
 * `hosted/http-tool-executor.ts`; this one only lets the loop's tests run against a real HTTP
 * endpoint without it.
 */
export function minimalHostedExecutor(tool: BundleHostedTool): HostedToolExecutor {
  const timeoutMs = parseDuration(tool.spec.endpoint.timeout) ?? 10_000;
  return {
    async execute(call): Promise<HostedResult> {
      const started = performance.now();
      const done = (result: Omit<HostedResult, 'durationMs'>): HostedResult => ({
        ...result,
        durationMs: performance.now() - started,
      });
      const signal = AbortSignal.any([call.signal, AbortSignal.timeout(timeoutMs)]);
      try {
        const response = await fetch(tool.spec.endpoint.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(call.arguments),
          signal,
        });
        const text = await response.text();
        if (!response.ok) {
          return done({
            outcome: 'error',
            isError: true,
            status: response.status,
            content: `the endpoint answered ${response.status}`,
          });
        }
        try {
          JSON.parse(text);
        } catch {
          return done({
            outcome: 'bad_response',
            isError: true,
            status: response.status,
            content: 'the endpoint answered with something other than JSON',
          });
        }
        return done({ outcome: 'ok', isError: false, status: response.status, content: text });
      } catch (error) {
        if (signal.aborted) {
          return done({
            outcome: 'timeout',
            isError: true,
            content: 'the endpoint did not answer in time',
          });
        }
        return done({
          outcome: 'unavailable',
          isError: true,
          content: `the endpoint could not be reached (${(error as Error).name})`,
        });
      }
    },
  };
}
