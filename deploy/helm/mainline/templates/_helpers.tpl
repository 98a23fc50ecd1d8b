{{/* Names, labels and the merged settings of one component. Every resource template ranges over
     `mainline.components`, so adding a service is one entry in values.components. */}}

{{- define "mainline.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "mainline.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "mainline.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Resource name of a component: <fullname>-<component>, 63 characters at most. */}}
{{- define "mainline.componentName" -}}
{{- printf "%s-%s" (include "mainline.fullname" .root) .name | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "mainline.labels" -}}
helm.sh/chart: {{ include "mainline.chart" . }}
app.kubernetes.io/name: {{ include "mainline.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: mainline
{{- end }}

{{/* Selector labels of a component; called with (dict "root" $ "name" $name). */}}
{{- define "mainline.selectorLabels" -}}
app.kubernetes.io/name: {{ include "mainline.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .name }}
{{- end }}

{{- define "mainline.componentLabels" -}}
{{ include "mainline.labels" .root }}
app.kubernetes.io/component: {{ .name }}
{{- end }}

{{/* The enabled components as JSON: name -> componentDefaults merged with the component's own values. */}}
{{- define "mainline.components" -}}
{{- $out := dict }}
{{- range $name, $c := .Values.components }}
{{- $merged := mergeOverwrite (deepCopy $.Values.componentDefaults) (deepCopy $c) }}
{{- if $merged.enabled }}
{{- $_ := set $out $name $merged }}
{{- end }}
{{- end }}
{{- toJson $out }}
{{- end }}

{{- define "mainline.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "mainline.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "mainline.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}
{{- end }}

{{/* The Secret the pods read MONGODB_URI and the tokens from. */}}
{{- define "mainline.secretName" -}}
{{- default (include "mainline.fullname" .) .Values.secrets.existingSecret }}
{{- end }}

{{/* True when the services get a MONGODB_URI (from values or from an existing Secret). */}}
{{- define "mainline.usesMongodb" -}}
{{- if or .Values.mongodb.uri .Values.secrets.existingSecret }}true{{ end }}
{{- end }}

{{/* Environment variable name -> gRPC address of each service, as the gateway's config expects. */}}
{{- define "mainline.addressEnv" -}}
{{- $components := include "mainline.components" . | fromJson }}
{{- range $name, $c := $components }}
{{- if eq $c.protocol "grpc" }}
{{ printf "%s_ADDR" ($name | upper | replace "-" "_") }}: {{ printf "%s:%v" (include "mainline.componentName" (dict "root" $ "name" $name)) (int $c.port) | quote }}
{{- end }}
{{- end }}
{{- end }}

{{/* Fails the render on settings the services cannot run with. */}}
{{- define "mainline.validate" -}}
{{- $components := include "mainline.components" . | fromJson }}
{{- $shared := not (include "mainline.usesMongodb" .) }}
{{- range $name, $c := $components }}
{{- $scales := or (gt (int $c.replicas) 1) $c.autoscaling.enabled }}
{{- if and $c.singleton $scales }}
{{- fail (printf "components.%s is a singleton: set replicas to 1 and autoscaling.enabled to false" $name) }}
{{- end }}
{{- if and $shared $scales }}
{{- fail (printf "components.%s: more than one replica needs MongoDB (mongodb.uri or secrets.existingSecret); the embedded store is per process" $name) }}
{{- end }}
{{- end }}
{{- if and .Values.serviceMonitor.enabled (not (hasKey $components "gateway")) }}
{{- fail "serviceMonitor.enabled needs components.gateway (it scrapes /v1/getMergeQueueMetrics)" }}
{{- end }}
{{- /* The gateway accepts only tokens it issued: an invented metricsToken would make every scrape a 401. */}}
{{- if and .Values.serviceMonitor.enabled (not .Values.secrets.existingSecret) (not .Values.auth.metricsToken) }}
{{- fail "serviceMonitor.enabled needs auth.metricsToken: an API token minted by Mainline for the organisation to scrape (mainline admin token create --org <slug> --description prometheus, or POST /v1/admin/tokens), see the chart's README" }}
{{- end }}
{{- end }}

{{/*
NATS server config for the components' users (the list of rendered user lines is the argument): include it in
your NATS configuration. The permissions are those of tools/src/dev/nats-users.ts.
*/}}
{{- define "mainline.natsAuthorization" -}}
MAINLINE_SERVICE = {
  publish: { allow: ["mainline.>", "$JS.API.>", "$JS.ACK.>", "$JS.FC.>", "$KV.>", "$O.>", "_INBOX.>"] }
  subscribe: { allow: ["_INBOX.>", "mainline.events.>"] }
}
authorization {
  users = [
{{ join "\n" . }}
  ]
}
{{- end }}
