import type { TestApi } from '../testing/test-api.ts';

/** Shared by the quality tests: loosely typed answers and operator calls over raw HTTP. */

/** What the API answers, loosely typed: objects, lists and token summaries. */
export interface Answer {
  apiVersion: string;
  kind: string;
  metadata: { name: string; resourceVersion: string; [key: string]: unknown };
  spec: unknown;
  status?: unknown;
  items: Answer[];
  id: string;
  token: string;
  expiresAt: string | null;
}

export async function operatorCall(
  api: TestApi,
  path: string,
  method = 'GET',
  body?: unknown,
): Promise<Answer> {
  const response = await api.fetch(path, {
    method,
    token: api.operatorToken,
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const json = await response.json();
  if (!response.ok)
    throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
  return json as Answer;
}

/** The first item of a list answer (the fixtures below always have one). */
export function first(list: Answer): Answer {
  const [item] = list.items;
  if (!item) throw new Error('expected a non-empty list');
  return item;
}
