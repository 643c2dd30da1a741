{{/* Names: <release>-toolgate, or the release name when it already says toolgate. */}}
{{- define "toolgate.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "toolgate.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "toolgate.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* The Kubernetes recommended labels. Call with (dict "root" $ "component" "api"). */}}
{{- define "toolgate.labels" -}}
helm.sh/chart: {{ include "toolgate.chart" .root }}
{{ include "toolgate.selectorLabels" . }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/part-of: toolgate
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
{{- end -}}

{{/* What Services, workloads, PodDisruptionBudgets select on: never changes for a release. */}}
{{- define "toolgate.selectorLabels" -}}
app.kubernetes.io/name: {{ include "toolgate.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- if .gateway }}
toolgate.dev/gateway-group: {{ .gateway }}
{{- end }}
{{- end -}}

{{/* An image reference. Call with (dict "root" $ "image" .Values.api.image). */}}
{{- define "toolgate.image" -}}
{{- $registry := .root.Values.image.registry | trimSuffix "/" -}}
{{- $tag := .image.tag | default .root.Values.image.tag | default .root.Chart.AppVersion -}}
{{- if $registry -}}
{{- printf "%s/%s:%s" $registry .image.repository $tag -}}
{{- else -}}
{{- printf "%s:%s" .image.repository $tag -}}
{{- end -}}
{{- end -}}

{{- define "toolgate.apiUrl" -}}
{{- printf "http://%s-api:%d" (include "toolgate.fullname" .) (int .Values.api.service.port) -}}
{{- end -}}

{{/* The Secret and key holding DATABASE_URL. */}}
{{- define "toolgate.databaseSecretName" -}}
{{- if .Values.database.existingSecret -}}
{{- .Values.database.existingSecret -}}
{{- else if .Values.database.url -}}
{{- printf "%s-database" (include "toolgate.fullname" .) -}}
{{- else -}}
{{- fail "database: set database.existingSecret (a Secret holding the PostgreSQL URL) or database.url" -}}
{{- end -}}
{{- end -}}

{{- define "toolgate.databaseSecretKey" -}}
{{- if .Values.database.existingSecret -}}{{ .Values.database.existingSecretKey }}{{- else -}}url{{- end -}}
{{- end -}}

{{/* A component's ServiceAccount: its own, or the namespace's `default` when none are created. */}}
{{- define "toolgate.serviceAccountName" -}}
{{- if .root.Values.serviceAccount.create -}}
{{- printf "%s-%s" (include "toolgate.fullname" .root) .component | trunc 63 | trimSuffix "-" -}}
{{- else -}}
default
{{- end -}}
{{- end -}}

{{/*
One gateway group with the defaults of .Values.gateway under it: (dict "root" $ "group" .).
Returns YAML; callers `fromYaml` it.
*/}}
{{- define "toolgate.gatewayGroup" -}}
{{- $group := deepCopy .root.Values.gateway -}}
{{- include "toolgate.overlay" (dict "dst" $group "src" (deepCopy .group)) -}}
{{- if not (regexMatch "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$" (toString $group.name)) -}}
{{- fail (printf "gateways: name %q must be lowercase letters, digits and '-', starting and ending with a letter or digit" (toString $group.name)) -}}
{{- end -}}
{{- /* A StatefulSet's pods carry controller-revision-hash=<name>-<10 characters> (63 at most). */ -}}
{{- $workload := printf "%s-gateway-%s" (include "toolgate.fullname" .root) $group.name -}}
{{- if gt (len $workload) 52 -}}
{{- fail (printf "gateways: %q is longer than 52 characters; shorten the release or the group name" $workload) -}}
{{- end -}}
{{- $_ := set $group "workload" $workload -}}
{{- $_ := set $group "identity" ($group.identity | default $workload) -}}
{{- $_ := set $group "tokenSecretName" ($group.tokenSecret.name | default (printf "%s-token" $workload)) -}}
{{- $_ := set $group "registered" (ternary $group.autoscaling.maxReplicas $group.replicas $group.autoscaling.enabled | int) -}}
{{- toYaml $group -}}
{{- end -}}

{{/*
Sets every key of .src into .dst, maps key by key, so an entry's `false` or `0` overrides a default
(sprig's mergeOverwrite skips empty values).
*/}}
{{- define "toolgate.overlay" -}}
{{- $dst := .dst -}}
{{- range $key, $value := .src -}}
{{- if and (kindIs "map" $value) (kindIs "map" (get $dst $key)) -}}
{{- include "toolgate.overlay" (dict "dst" (get $dst $key) "src" $value) -}}
{{- else -}}
{{- $_ := set $dst $key $value -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* The pod-level settings every workload shares: (dict "root" $ "component" "api" "values" .Values.api). */}}
{{- define "toolgate.podCommon" -}}
serviceAccountName: {{ include "toolgate.serviceAccountName" . }}
automountServiceAccountToken: {{ .root.Values.serviceAccount.automountServiceAccountToken }}
securityContext:
  {{- toYaml .root.Values.podSecurityContext | nindent 2 }}
{{- with .root.Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .values.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .values.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .values.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .values.topologySpreadConstraints }}
topologySpreadConstraints:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{/* A container's securityContext: (dict "root" $ "readOnly" true). */}}
{{- define "toolgate.containerSecurityContext" -}}
{{- $context := deepCopy .root.Values.containerSecurityContext -}}
{{- $_ := set $context "readOnlyRootFilesystem" .readOnly -}}
{{- toYaml $context -}}
{{- end -}}

{{/* Extra variables from an `env:` map, as strings, in name order. */}}
{{- define "toolgate.extraEnv" -}}
{{- range $name, $value := . }}
- name: {{ $name }}
  value: {{ toString $value | quote }}
{{- end }}
{{- end -}}

{{/* DATABASE_URL from its Secret: never a literal in a pod spec. */}}
{{- define "toolgate.databaseEnv" -}}
- name: DATABASE_URL
  valueFrom:
    secretKeyRef:
      name: {{ include "toolgate.databaseSecretName" . }}
      key: {{ include "toolgate.databaseSecretKey" . }}
{{- end -}}
