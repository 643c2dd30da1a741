import { cachingRegistry, type HostedExecutorRegistry } from './executor-registry.ts';
import { createHttpToolExecutor, type HttpToolExecutor } from './http-tool-executor.ts';

/**
 * The gateway's registry of HostedTool executors: one HTTP executor (a keep-alive pool) per
 * HostedTool of the bundle, made on its first call and kept while its spec stays the same; a
 * changed spec gets a new one and the old one's pool is closed (gracefully: calls in flight
 * finish). `close()` closes them all, at shutdown.
 */
export function httpExecutorRegistry(
  secrets: Readonly<Record<string, string | undefined>>,
): HostedExecutorRegistry & { close(): Promise<void> } {
  const retire = (executor: HttpToolExecutor) => void executor.close().catch(() => {});
  const registry = cachingRegistry(
    (tool) => createHttpToolExecutor(tool, { secrets }),
    (executor) => retire(executor as HttpToolExecutor),
  );
  return {
    executorFor: (tool) => registry.executorFor(tool),
    async close() {
      await Promise.allSettled(registry.executors().map((e) => (e as HttpToolExecutor).close()));
    },
  };
}
