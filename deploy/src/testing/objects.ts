import type { KubeObject } from '../render.ts';

/** Test support: typed views of rendered objects. */

export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: {
    secretKeyRef?: { name: string; key: string; optional?: boolean };
    fieldRef?: { fieldPath: string };
  };
}

export interface Probe {
  httpGet?: { path: string; port: string | number };
}

export interface Container {
  name: string;
  image: string;
  command?: string[];
  args?: string[];
  env?: EnvVar[];
  envFrom?: unknown[];
  ports?: Array<{ name: string; containerPort: number }>;
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  startupProbe?: Probe;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: {
    runAsNonRoot?: boolean;
    allowPrivilegeEscalation?: boolean;
    privileged?: boolean;
    readOnlyRootFilesystem?: boolean;
    capabilities?: { drop?: string[]; add?: string[] };
  };
  volumeMounts?: Array<{ name: string; mountPath: string }>;
}

export interface PodSpec {
  serviceAccountName?: string;
  automountServiceAccountToken?: boolean;
  securityContext?: {
    runAsNonRoot?: boolean;
    runAsUser?: number;
    fsGroup?: number;
    seccompProfile?: { type: string };
  };
  initContainers?: Container[];
  containers: Container[];
  volumes?: Array<{
    name: string;
    emptyDir?: { sizeLimit?: string };
    configMap?: { name: string };
    persistentVolumeClaim?: unknown;
  }>;
}

export interface PodTemplate {
  metadata: { labels: Record<string, string> };
  spec: PodSpec;
}

/** A workload (Deployment, StatefulSet, Job) and the pod it runs. */
export interface Workload {
  object: KubeObject;
  pod: PodTemplate;
}

const WORKLOAD_KINDS = new Set(['Deployment', 'StatefulSet', 'Job']);

export function workloads(objects: KubeObject[]): Workload[] {
  return objects
    .filter((object) => WORKLOAD_KINDS.has(object.kind))
    .map((object) => ({ object, pod: (object.spec as { template: PodTemplate }).template }));
}

export function find(objects: KubeObject[], kind: string, name: string): KubeObject {
  const found = objects.find((object) => object.kind === kind && object.metadata.name === name);
  if (!found) {
    const present = objects.map((object) => `${object.kind}/${object.metadata.name}`).join(', ');
    throw new Error(`no ${kind}/${name} among ${present}`);
  }
  return found;
}

export function podOf(object: KubeObject): PodTemplate {
  return (object.spec as { template: PodTemplate }).template;
}

export function containerOf(object: KubeObject, name: string): Container {
  const pod = podOf(object).spec;
  const container = [...(pod.initContainers ?? []), ...pod.containers].find(
    (candidate) => candidate.name === name,
  );
  if (!container) throw new Error(`${object.metadata.name} has no container ${name}`);
  return container;
}

export function envOf(container: Container): Map<string, EnvVar> {
  return new Map((container.env ?? []).map((variable) => [variable.name, variable]));
}

/** Every container of a pod, init containers first. */
export function containersOf(pod: PodTemplate): Container[] {
  return [...(pod.spec.initContainers ?? []), ...pod.spec.containers];
}

/** Whether every `key: value` of `selector` is among `labels`. */
export function selects(selector: Record<string, string>, labels: Record<string, string>) {
  return Object.entries(selector).every(([key, value]) => labels[key] === value);
}
