/**
 * Polls `check` until it holds; throws naming `what` after `timeoutMs`. For tests that wait on
 * another process or server (never to measure time: no test asserts on durations).
 */
export async function until(
  check: () => boolean | Promise<boolean>,
  timeoutMs = 10_000,
  what: string | (() => string) = 'condition',
  intervalMs = 25,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) {
      throw new Error(
        `not met within ${timeoutMs} ms: ${typeof what === 'function' ? what() : what}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
