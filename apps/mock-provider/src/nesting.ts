/**
 * Real provider APIs refuse JSON nested past a bound with a 400 (Google's protobuf JSON parser
 * stops at 100 levels; OpenAI's and Anthropic's parsers refuse bodies far less deep than the
 * tens of thousands of levels a hostile agent can send). The mock does the same before anything
 * walks the body: hashing or planning a reply recurses, and a stack overflow would be a 500 that
 * no real provider gives for a client's error.
 */
export const MAX_NESTING = 100;

/** How deeply `value` nests (a scalar is 0, `{}` and `[]` are 1), counted without recursion. */
export function nestingDepth(value: unknown, stopAbove = Number.POSITIVE_INFINITY): number {
  let deepest = 0;
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const { value: current, depth } = stack.pop() as { value: unknown; depth: number };
    if (typeof current !== 'object' || current === null) continue;
    const inner = depth + 1;
    if (inner > deepest) deepest = inner;
    if (deepest > stopAbove) return deepest;
    const children = Array.isArray(current) ? current : Object.values(current);
    for (const child of children) {
      if (typeof child === 'object' && child !== null) stack.push({ value: child, depth: inner });
    }
  }
  return deepest;
}

/** The provider-style message for a body nested past {@link MAX_NESTING}, or undefined. */
export function tooDeepMessage(body: unknown): string | undefined {
  const depth = nestingDepth(body, MAX_NESTING);
  return depth > MAX_NESTING
    ? `request body nests more than ${MAX_NESTING} levels deep`
    : undefined;
}
