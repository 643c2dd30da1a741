import type { BundleHostedTool } from '@toolgate/core';
import type { HostedToolExecutor } from './hosted-executor.ts';

/**
 * Where the tool loop gets the executor of a `HostedTool` (the gateway gets one at
 * construction: `ProxyDependencies.hostedExecutors`). The HTTP executor
 * (`http-tool-executor.ts`) plugs in here; tests inject their own. Undefined: the tool cannot be
 * run on this gateway, and the model is told so as the call's result (`unavailable`).
 */
export interface HostedExecutorRegistry {
  executorFor(tool: BundleHostedTool): HostedToolExecutor | undefined;
}

/**
 * A registry that makes one executor per HostedTool spec and reuses it while the spec is the
 * same (a bundle update with a changed spec gets a new one; the old one is handed to `retire`).
 */
export function cachingRegistry(
  create: (tool: BundleHostedTool) => HostedToolExecutor,
  retire: (executor: HostedToolExecutor) => void = () => {},
): HostedExecutorRegistry & { executors(): HostedToolExecutor[] } {
  const byName = new Map<string, { spec: string; executor: HostedToolExecutor }>();
  return {
    executorFor(tool) {
      const spec = JSON.stringify(tool.spec);
      const known = byName.get(tool.name);
      if (known?.spec === spec) return known.executor;
      if (known) retire(known.executor);
      const executor = create(tool);
      byName.set(tool.name, { spec, executor });
      return executor;
    },
    executors: () => [...byName.values()].map((e) => e.executor),
  };
}
