import type { Labels } from '@toolgate/core';

/** Any stored Kubernetes-style object, as the API returns it. */
export interface StoredObject {
  apiVersion: 'toolgate.dev/v1';
  kind: string;
  metadata: {
    name: string;
    uid: string;
    labels: Labels;
    annotations: Record<string, string>;
    generation: number;
    resourceVersion: string;
    creationTimestamp: string;
  };
  spec: unknown;
  status: Record<string, unknown>;
}

/** What a client sends: the envelope's writable parts. */
export interface ObjectInput {
  metadata: {
    name: string;
    labels?: Labels;
    annotations?: Record<string, string>;
    resourceVersion?: string;
  };
  spec: unknown;
}
