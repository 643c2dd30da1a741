import { parseDocument, stringify } from 'yaml';

/** The editor's text, parsed: either an object to send or why it is not one. */
export type PolicyDraft =
  | { ok: true; text: string; object: Record<string, unknown> }
  | { ok: false; text: string; error: string };

export function parseDraft(text: string): PolicyDraft {
  const doc = parseDocument(text, { prettyErrors: false });
  if (doc.errors.length > 0) {
    const error = doc.errors[0];
    const line = error?.linePos?.[0];
    return {
      ok: false,
      text,
      error: `YAML syntax error${line ? ` at line ${line.line}` : ''}: ${error?.message.split('\n')[0]}`,
    };
  }
  const value = doc.toJS() as unknown;
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, text, error: 'the document must be a MediationPolicy object' };
  }
  return { ok: true, text, object: value as Record<string, unknown> };
}

export function toYaml(object: unknown): string {
  return stringify(object, { lineWidth: 0 });
}

/** What the editor shows for a stored policy: the parts one writes, never server-owned fields. */
export function editableObject(policy: {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: unknown;
}): Record<string, unknown> {
  const metadata: Record<string, unknown> = { name: policy.metadata.name };
  if (policy.metadata.labels && Object.keys(policy.metadata.labels).length > 0)
    metadata.labels = policy.metadata.labels;
  if (policy.metadata.annotations && Object.keys(policy.metadata.annotations).length > 0)
    metadata.annotations = policy.metadata.annotations;
  return { apiVersion: policy.apiVersion, kind: policy.kind, metadata, spec: policy.spec };
}

export const NEW_POLICY_TEMPLATE = `apiVersion: toolgate.dev/v1
kind: MediationPolicy
metadata:
  name: my-policy
  labels: {}
spec:
  selector: {}
  priority: 0
  mode: patch
  rules:
    - id: hide-pr-creation
      action: hide
      match:
        name: create_pull_request
`;
