import { useCallback, useSyncExternalStore } from 'react';

/**
 * Unsaved editor drafts, one per policy, kept in sessionStorage: they survive switching the
 * page's tabs (the editor unmounts), navigating elsewhere in the console and reloading, and are
 * dropped with the browser tab. `base` is the resourceVersion the draft was started from, so a
 * draft of an older generation can be told apart from one of the current.
 */
export interface StoredDraft {
  base: string;
  text: string;
}

const PREFIX = 'toolgate.policy-draft:';
/** A draft larger than this is not kept (sessionStorage is ~5 MB for the whole origin). */
const MAX_DRAFT_CHARS = 512 * 1024;
const listeners = new Set<() => void>();

/** The key of a policy's draft; a new, unnamed policy has one draft of its own. */
export const draftKey = (name: string | undefined) => `${PREFIX}${name ?? ' new'}`;

function storage(): Storage | undefined {
  try {
    return globalThis.sessionStorage;
  } catch {
    // Storage denied (privacy settings): drafts then live as long as the editor does.
    return undefined;
  }
}

export function readDraft(name: string | undefined): StoredDraft | undefined {
  const raw = storage()?.getItem(draftKey(name));
  if (!raw) return undefined;
  try {
    const value = JSON.parse(raw) as unknown;
    if (
      value &&
      typeof value === 'object' &&
      typeof (value as StoredDraft).base === 'string' &&
      typeof (value as StoredDraft).text === 'string'
    )
      return value as StoredDraft;
  } catch {
    // A damaged entry is dropped below.
  }
  storage()?.removeItem(draftKey(name));
  return undefined;
}

export function writeDraft(name: string | undefined, draft: StoredDraft): void {
  if (draft.text.length > MAX_DRAFT_CHARS) return;
  try {
    storage()?.setItem(draftKey(name), JSON.stringify(draft));
  } catch {
    // Quota exceeded: the draft stays in the editor only.
  }
  notify();
}

export function clearDraft(name: string | undefined): void {
  storage()?.removeItem(draftKey(name));
  notify();
}

function notify(): void {
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Whether a policy has an unsaved draft; re-renders when one is written or cleared. */
export function useHasDraft(name: string | undefined): boolean {
  const snapshot = useCallback(() => readDraft(name) !== undefined, [name]);
  return useSyncExternalStore(subscribe, snapshot, snapshot);
}
