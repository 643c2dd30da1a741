import * as apps from 'kubernetes-models/apps/v1';
import * as autoscaling from 'kubernetes-models/autoscaling/v2';
import * as batch from 'kubernetes-models/batch/v1';
import * as networking from 'kubernetes-models/networking.k8s.io/v1';
import * as policy from 'kubernetes-models/policy/v1';
import * as core from 'kubernetes-models/v1';
import type { KubeObject } from './render.ts';

/**
 * Validation of rendered objects against the Kubernetes OpenAPI schemas, as compiled by
 * kubernetes-models (Kubernetes 1.30): types, required fields, enums and formats (quantities,
 * ports, …). An object of an API group and version not listed here, or of a kind the group does
 * not have, is an error rather than a pass.
 */

interface ModelClass {
  new (data: unknown): { validate(): void };
  apiVersion: string;
  kind: string;
}

const GROUP_VERSIONS: Record<string, Record<string, unknown>> = {
  v1: core,
  'apps/v1': apps,
  'autoscaling/v2': autoscaling,
  'batch/v1': batch,
  'networking.k8s.io/v1': networking,
  'policy/v1': policy,
};

function modelOf(apiVersion: string, kind: string): ModelClass | undefined {
  const candidate = GROUP_VERSIONS[apiVersion]?.[kind] as Partial<ModelClass> | undefined;
  return candidate?.apiVersion === apiVersion && candidate.kind === kind
    ? (candidate as ModelClass)
    : undefined;
}

/** What is wrong with `object` by its kind's schema; empty when it is valid. */
export function schemaErrors(object: KubeObject): string[] {
  const model = modelOf(object.apiVersion, object.kind);
  if (!model) return [`no schema for ${object.apiVersion} ${object.kind}`];
  try {
    new model(object).validate();
    return [];
  } catch (error) {
    return [(error as Error).message];
  }
}
