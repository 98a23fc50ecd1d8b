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
{{- range $name, $c := $components }}
{{- $scales := or (gt (int $c.replicas) 1) $c.autoscaling.enabled }}
{{- if and $c.singleton $scales }}
{{- fail (printf "components.%s is a singleton: set replicas to 1 and autoscaling.enabled to false" $name) }}
{{- end }}
{{- end }}
{{- if and .Values.ingress.enabled (not .Values.ingress.hosts) }}
{{- fail "ingress.enabled needs ingress.hosts: the host names GitHub and your users reach Mainline at (and ingress.tls for HTTPS)" }}
{{- end }}
{{- if and .Values.ingress.enabled (not (hasKey $components "gateway")) }}
{{- fail "ingress.enabled needs components.gateway (the Ingress routes to it)" }}
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
your NATS configuration. Each component's permissions are those of tools/src/dev/service-permissions.ts,
written here by `make nats-permissions`; a user entry names its component's variable.
*/}}
{{- define "mainline.natsAuthorization" -}}
# BEGIN NATS permissions, generated from tools/src/dev/service-permissions.ts
MAINLINE_GATEWAY = {
  publish: {
    allow: [
      "$JS.API.INFO"
      "$JS.API.STREAM.NAMES"
      "_INBOX.>"
      "$JS.API.STREAM.INFO.KV_mainline-2dgateway_api-5ftokens"
      "$JS.API.STREAM.CREATE.KV_mainline-2dgateway_api-5ftokens"
      "$JS.API.STREAM.UPDATE.KV_mainline-2dgateway_api-5ftokens"
      "$JS.API.STREAM.MSG.GET.KV_mainline-2dgateway_api-5ftokens"
      "$JS.API.DIRECT.GET.KV_mainline-2dgateway_api-5ftokens"
      "$JS.API.DIRECT.GET.KV_mainline-2dgateway_api-5ftokens.>"
      "$JS.API.CONSUMER.*.KV_mainline-2dgateway_api-5ftokens"
      "$JS.API.CONSUMER.*.KV_mainline-2dgateway_api-5ftokens.>"
      "$JS.API.CONSUMER.DURABLE.CREATE.KV_mainline-2dgateway_api-5ftokens.>"
      "$JS.API.CONSUMER.MSG.NEXT.KV_mainline-2dgateway_api-5ftokens.>"
      "$JS.ACK.KV_mainline-2dgateway_api-5ftokens.>"
      "$JS.FC.KV_mainline-2dgateway_api-5ftokens.>"
      "$KV.mainline-2dgateway_api-5ftokens.>"
      "$JS.API.STREAM.INFO.KV_mainline-2dgateway_organizations"
      "$JS.API.STREAM.CREATE.KV_mainline-2dgateway_organizations"
      "$JS.API.STREAM.UPDATE.KV_mainline-2dgateway_organizations"
      "$JS.API.STREAM.MSG.GET.KV_mainline-2dgateway_organizations"
      "$JS.API.DIRECT.GET.KV_mainline-2dgateway_organizations"
      "$JS.API.DIRECT.GET.KV_mainline-2dgateway_organizations.>"
      "$JS.API.CONSUMER.*.KV_mainline-2dgateway_organizations"
      "$JS.API.CONSUMER.*.KV_mainline-2dgateway_organizations.>"
      "$JS.API.CONSUMER.DURABLE.CREATE.KV_mainline-2dgateway_organizations.>"
      "$JS.API.CONSUMER.MSG.NEXT.KV_mainline-2dgateway_organizations.>"
      "$JS.ACK.KV_mainline-2dgateway_organizations.>"
      "$JS.FC.KV_mainline-2dgateway_organizations.>"
      "$KV.mainline-2dgateway_organizations.>"
      "$JS.API.STREAM.INFO.KV_mainline-2dgateway_ended-5fweb-5fsessions"
      "$JS.API.STREAM.CREATE.KV_mainline-2dgateway_ended-5fweb-5fsessions"
      "$JS.API.STREAM.UPDATE.KV_mainline-2dgateway_ended-5fweb-5fsessions"
      "$JS.API.STREAM.MSG.GET.KV_mainline-2dgateway_ended-5fweb-5fsessions"
      "$JS.API.DIRECT.GET.KV_mainline-2dgateway_ended-5fweb-5fsessions"
      "$JS.API.DIRECT.GET.KV_mainline-2dgateway_ended-5fweb-5fsessions.>"
      "$JS.API.CONSUMER.*.KV_mainline-2dgateway_ended-5fweb-5fsessions"
      "$JS.API.CONSUMER.*.KV_mainline-2dgateway_ended-5fweb-5fsessions.>"
      "$JS.API.CONSUMER.DURABLE.CREATE.KV_mainline-2dgateway_ended-5fweb-5fsessions.>"
      "$JS.API.CONSUMER.MSG.NEXT.KV_mainline-2dgateway_ended-5fweb-5fsessions.>"
      "$JS.ACK.KV_mainline-2dgateway_ended-5fweb-5fsessions.>"
      "$JS.FC.KV_mainline-2dgateway_ended-5fweb-5fsessions.>"
      "$KV.mainline-2dgateway_ended-5fweb-5fsessions.>"
      "$JS.API.STREAM.INFO.KV_mainline-2dgateway_github-5fdeliveries"
      "$JS.API.STREAM.CREATE.KV_mainline-2dgateway_github-5fdeliveries"
      "$JS.API.STREAM.UPDATE.KV_mainline-2dgateway_github-5fdeliveries"
      "$JS.API.STREAM.MSG.GET.KV_mainline-2dgateway_github-5fdeliveries"
      "$JS.API.DIRECT.GET.KV_mainline-2dgateway_github-5fdeliveries"
      "$JS.API.DIRECT.GET.KV_mainline-2dgateway_github-5fdeliveries.>"
      "$JS.API.CONSUMER.*.KV_mainline-2dgateway_github-5fdeliveries"
      "$JS.API.CONSUMER.*.KV_mainline-2dgateway_github-5fdeliveries.>"
      "$JS.API.CONSUMER.DURABLE.CREATE.KV_mainline-2dgateway_github-5fdeliveries.>"
      "$JS.API.CONSUMER.MSG.NEXT.KV_mainline-2dgateway_github-5fdeliveries.>"
      "$JS.ACK.KV_mainline-2dgateway_github-5fdeliveries.>"
      "$JS.FC.KV_mainline-2dgateway_github-5fdeliveries.>"
      "$KV.mainline-2dgateway_github-5fdeliveries.>"
    ]
  }
  subscribe: {
    allow: [
      "_INBOX.>"
      "mainline.events.>"
    ]
  }
}
MAINLINE_QUEUE_COORDINATOR = {
  publish: {
    allow: [
      "$JS.API.INFO"
      "$JS.API.STREAM.NAMES"
      "_INBOX.>"
      "mainline.jobs.test-run"
      "mainline.jobs.merge"
      "mainline.jobs.test-branch-cleanup"
      "mainline.jobs.test-results"
      "mainline.events.pull-request"
      "mainline.events.pull-request-priority"
      "mainline.events.queue"
      "mainline.events.batch"
      "mainline.events.test-run"
      "mainline.events.queue"
      "$JS.API.STREAM.INFO.MAINLINE_JOBS"
      "$JS.API.STREAM.CREATE.MAINLINE_JOBS"
      "$JS.API.STREAM.UPDATE.MAINLINE_JOBS"
      "$JS.API.STREAM.INFO.MAINLINE_RESULTS"
      "$JS.API.STREAM.CREATE.MAINLINE_RESULTS"
      "$JS.API.STREAM.UPDATE.MAINLINE_RESULTS"
      "$JS.API.STREAM.INFO.MAINLINE_EVENTS"
      "$JS.API.STREAM.CREATE.MAINLINE_EVENTS"
      "$JS.API.STREAM.UPDATE.MAINLINE_EVENTS"
      "$JS.API.STREAM.INFO.MAINLINE_RESULTS"
      "$JS.API.STREAM.CREATE.MAINLINE_RESULTS"
      "$JS.API.STREAM.UPDATE.MAINLINE_RESULTS"
      "$JS.API.STREAM.MSG.GET.MAINLINE_RESULTS"
      "$JS.API.DIRECT.GET.MAINLINE_RESULTS"
      "$JS.API.DIRECT.GET.MAINLINE_RESULTS.>"
      "$JS.API.CONSUMER.*.MAINLINE_RESULTS"
      "$JS.API.CONSUMER.*.MAINLINE_RESULTS.>"
      "$JS.API.CONSUMER.DURABLE.CREATE.MAINLINE_RESULTS.>"
      "$JS.API.CONSUMER.MSG.NEXT.MAINLINE_RESULTS.>"
      "$JS.ACK.MAINLINE_RESULTS.>"
      "$JS.FC.MAINLINE_RESULTS.>"
      "$JS.API.STREAM.INFO.MAINLINE_EVENTS"
      "$JS.API.STREAM.CREATE.MAINLINE_EVENTS"
      "$JS.API.STREAM.UPDATE.MAINLINE_EVENTS"
      "$JS.API.STREAM.MSG.GET.MAINLINE_EVENTS"
      "$JS.API.DIRECT.GET.MAINLINE_EVENTS"
      "$JS.API.DIRECT.GET.MAINLINE_EVENTS.>"
      "$JS.API.CONSUMER.*.MAINLINE_EVENTS"
      "$JS.API.CONSUMER.*.MAINLINE_EVENTS.>"
      "$JS.API.CONSUMER.DURABLE.CREATE.MAINLINE_EVENTS.>"
      "$JS.API.CONSUMER.MSG.NEXT.MAINLINE_EVENTS.>"
      "$JS.ACK.MAINLINE_EVENTS.>"
      "$JS.FC.MAINLINE_EVENTS.>"
      "$JS.API.STREAM.INFO.OBJ_mainline_test_run_outputs"
      "$JS.API.STREAM.CREATE.OBJ_mainline_test_run_outputs"
      "$JS.API.STREAM.UPDATE.OBJ_mainline_test_run_outputs"
      "$JS.API.STREAM.MSG.GET.OBJ_mainline_test_run_outputs"
      "$JS.API.DIRECT.GET.OBJ_mainline_test_run_outputs"
      "$JS.API.DIRECT.GET.OBJ_mainline_test_run_outputs.>"
      "$JS.API.CONSUMER.*.OBJ_mainline_test_run_outputs"
      "$JS.API.CONSUMER.*.OBJ_mainline_test_run_outputs.>"
      "$JS.API.CONSUMER.DURABLE.CREATE.OBJ_mainline_test_run_outputs.>"
      "$JS.API.CONSUMER.MSG.NEXT.OBJ_mainline_test_run_outputs.>"
      "$JS.ACK.OBJ_mainline_test_run_outputs.>"
      "$JS.FC.OBJ_mainline_test_run_outputs.>"
      "$JS.API.STREAM.INFO.KV_mainline-2dqueue-2dcoordinator_queues"
      "$JS.API.STREAM.CREATE.KV_mainline-2dqueue-2dcoordinator_queues"
      "$JS.API.STREAM.UPDATE.KV_mainline-2dqueue-2dcoordinator_queues"
      "$JS.API.STREAM.MSG.GET.KV_mainline-2dqueue-2dcoordinator_queues"
      "$JS.API.DIRECT.GET.KV_mainline-2dqueue-2dcoordinator_queues"
      "$JS.API.DIRECT.GET.KV_mainline-2dqueue-2dcoordinator_queues.>"
      "$JS.API.CONSUMER.*.KV_mainline-2dqueue-2dcoordinator_queues"
      "$JS.API.CONSUMER.*.KV_mainline-2dqueue-2dcoordinator_queues.>"
      "$JS.API.CONSUMER.DURABLE.CREATE.KV_mainline-2dqueue-2dcoordinator_queues.>"
      "$JS.API.CONSUMER.MSG.NEXT.KV_mainline-2dqueue-2dcoordinator_queues.>"
      "$JS.ACK.KV_mainline-2dqueue-2dcoordinator_queues.>"
      "$JS.FC.KV_mainline-2dqueue-2dcoordinator_queues.>"
      "$KV.mainline-2dqueue-2dcoordinator_queues.>"
      "$JS.API.STREAM.INFO.KV_mainline-2dqueue-2dcoordinator_test-5fruns"
      "$JS.API.STREAM.CREATE.KV_mainline-2dqueue-2dcoordinator_test-5fruns"
      "$JS.API.STREAM.UPDATE.KV_mainline-2dqueue-2dcoordinator_test-5fruns"
      "$JS.API.STREAM.MSG.GET.KV_mainline-2dqueue-2dcoordinator_test-5fruns"
      "$JS.API.DIRECT.GET.KV_mainline-2dqueue-2dcoordinator_test-5fruns"
      "$JS.API.DIRECT.GET.KV_mainline-2dqueue-2dcoordinator_test-5fruns.>"
      "$JS.API.CONSUMER.*.KV_mainline-2dqueue-2dcoordinator_test-5fruns"
      "$JS.API.CONSUMER.*.KV_mainline-2dqueue-2dcoordinator_test-5fruns.>"
      "$JS.API.CONSUMER.DURABLE.CREATE.KV_mainline-2dqueue-2dcoordinator_test-5fruns.>"
      "$JS.API.CONSUMER.MSG.NEXT.KV_mainline-2dqueue-2dcoordinator_test-5fruns.>"
      "$JS.ACK.KV_mainline-2dqueue-2dcoordinator_test-5fruns.>"
      "$JS.FC.KV_mainline-2dqueue-2dcoordinator_test-5fruns.>"
      "$KV.mainline-2dqueue-2dcoordinator_test-5fruns.>"
      "$JS.API.STREAM.INFO.KV_mainline-2dqueue-2dcoordinator_finished-5fentries"
      "$JS.API.STREAM.CREATE.KV_mainline-2dqueue-2dcoordinator_finished-5fentries"
      "$JS.API.STREAM.UPDATE.KV_mainline-2dqueue-2dcoordinator_finished-5fentries"
      "$JS.API.STREAM.MSG.GET.KV_mainline-2dqueue-2dcoordinator_finished-5fentries"
      "$JS.API.DIRECT.GET.KV_mainline-2dqueue-2dcoordinator_finished-5fentries"
      "$JS.API.DIRECT.GET.KV_mainline-2dqueue-2dcoordinator_finished-5fentries.>"
      "$JS.API.CONSUMER.*.KV_mainline-2dqueue-2dcoordinator_finished-5fentries"
      "$JS.API.CONSUMER.*.KV_mainline-2dqueue-2dcoordinator_finished-5fentries.>"
      "$JS.API.CONSUMER.DURABLE.CREATE.KV_mainline-2dqueue-2dcoordinator_finished-5fentries.>"
      "$JS.API.CONSUMER.MSG.NEXT.KV_mainline-2dqueue-2dcoordinator_finished-5fentries.>"
      "$JS.ACK.KV_mainline-2dqueue-2dcoordinator_finished-5fentries.>"
      "$JS.FC.KV_mainline-2dqueue-2dcoordinator_finished-5fentries.>"
      "$KV.mainline-2dqueue-2dcoordinator_finished-5fentries.>"
      "$JS.API.STREAM.INFO.KV_mainline-2dqueue-2dcoordinator_pull-5frequest-5ffacts"
      "$JS.API.STREAM.CREATE.KV_mainline-2dqueue-2dcoordinator_pull-5frequest-5ffacts"
      "$JS.API.STREAM.UPDATE.KV_mainline-2dqueue-2dcoordinator_pull-5frequest-5ffacts"
      "$JS.API.STREAM.MSG.GET.KV_mainline-2dqueue-2dcoordinator_pull-5frequest-5ffacts"
      "$JS.API.DIRECT.GET.KV_mainline-2dqueue-2dcoordinator_pull-5frequest-5ffacts"
      "$JS.API.DIRECT.GET.KV_mainline-2dqueue-2dcoordinator_pull-5frequest-5ffacts.>"
      "$JS.API.CONSUMER.*.KV_mainline-2dqueue-2dcoordinator_pull-5frequest-5ffacts"
      "$JS.API.CONSUMER.*.KV_mainline-2dqueue-2dcoordinator_pull-5frequest-5ffacts.>"
      "$JS.API.CONSUMER.DURABLE.CREATE.KV_mainline-2dqueue-2dcoordinator_pull-5frequest-5ffacts.>"
      "$JS.API.CONSUMER.MSG.NEXT.KV_mainline-2dqueue-2dcoordinator_pull-5frequest-5ffacts.>"
      "$JS.ACK.KV_mainline-2dqueue-2dcoordinator_pull-5frequest-5ffacts.>"
      "$JS.FC.KV_mainline-2dqueue-2dcoordinator_pull-5frequest-5ffacts.>"
      "$KV.mainline-2dqueue-2dcoordinator_pull-5frequest-5ffacts.>"
      "$JS.API.STREAM.INFO.KV_mainline-2dqueue-2dcoordinator_repository-5fconnections"
      "$JS.API.STREAM.CREATE.KV_mainline-2dqueue-2dcoordinator_repository-5fconnections"
      "$JS.API.STREAM.UPDATE.KV_mainline-2dqueue-2dcoordinator_repository-5fconnections"
      "$JS.API.STREAM.MSG.GET.KV_mainline-2dqueue-2dcoordinator_repository-5fconnections"
      "$JS.API.DIRECT.GET.KV_mainline-2dqueue-2dcoordinator_repository-5fconnections"
      "$JS.API.DIRECT.GET.KV_mainline-2dqueue-2dcoordinator_repository-5fconnections.>"
      "$JS.API.CONSUMER.*.KV_mainline-2dqueue-2dcoordinator_repository-5fconnections"
      "$JS.API.CONSUMER.*.KV_mainline-2dqueue-2dcoordinator_repository-5fconnections.>"
      "$JS.API.CONSUMER.DURABLE.CREATE.KV_mainline-2dqueue-2dcoordinator_repository-5fconnections.>"
      "$JS.API.CONSUMER.MSG.NEXT.KV_mainline-2dqueue-2dcoordinator_repository-5fconnections.>"
      "$JS.ACK.KV_mainline-2dqueue-2dcoordinator_repository-5fconnections.>"
      "$JS.FC.KV_mainline-2dqueue-2dcoordinator_repository-5fconnections.>"
      "$KV.mainline-2dqueue-2dcoordinator_repository-5fconnections.>"
      "$JS.API.STREAM.INFO.KV_mainline-2dqueue-2dcoordinator_github-5finstallations"
      "$JS.API.STREAM.CREATE.KV_mainline-2dqueue-2dcoordinator_github-5finstallations"
      "$JS.API.STREAM.UPDATE.KV_mainline-2dqueue-2dcoordinator_github-5finstallations"
      "$JS.API.STREAM.MSG.GET.KV_mainline-2dqueue-2dcoordinator_github-5finstallations"
      "$JS.API.DIRECT.GET.KV_mainline-2dqueue-2dcoordinator_github-5finstallations"
      "$JS.API.DIRECT.GET.KV_mainline-2dqueue-2dcoordinator_github-5finstallations.>"
      "$JS.API.CONSUMER.*.KV_mainline-2dqueue-2dcoordinator_github-5finstallations"
      "$JS.API.CONSUMER.*.KV_mainline-2dqueue-2dcoordinator_github-5finstallations.>"
      "$JS.API.CONSUMER.DURABLE.CREATE.KV_mainline-2dqueue-2dcoordinator_github-5finstallations.>"
      "$JS.API.CONSUMER.MSG.NEXT.KV_mainline-2dqueue-2dcoordinator_github-5finstallations.>"
      "$JS.ACK.KV_mainline-2dqueue-2dcoordinator_github-5finstallations.>"
      "$JS.FC.KV_mainline-2dqueue-2dcoordinator_github-5finstallations.>"
      "$KV.mainline-2dqueue-2dcoordinator_github-5finstallations.>"
      "$JS.API.STREAM.INFO.KV_mainline-2dqueue-2dcoordinator_branch-5fpushes"
      "$JS.API.STREAM.CREATE.KV_mainline-2dqueue-2dcoordinator_branch-5fpushes"
      "$JS.API.STREAM.UPDATE.KV_mainline-2dqueue-2dcoordinator_branch-5fpushes"
      "$JS.API.STREAM.MSG.GET.KV_mainline-2dqueue-2dcoordinator_branch-5fpushes"
      "$JS.API.DIRECT.GET.KV_mainline-2dqueue-2dcoordinator_branch-5fpushes"
      "$JS.API.DIRECT.GET.KV_mainline-2dqueue-2dcoordinator_branch-5fpushes.>"
      "$JS.API.CONSUMER.*.KV_mainline-2dqueue-2dcoordinator_branch-5fpushes"
      "$JS.API.CONSUMER.*.KV_mainline-2dqueue-2dcoordinator_branch-5fpushes.>"
      "$JS.API.CONSUMER.DURABLE.CREATE.KV_mainline-2dqueue-2dcoordinator_branch-5fpushes.>"
      "$JS.API.CONSUMER.MSG.NEXT.KV_mainline-2dqueue-2dcoordinator_branch-5fpushes.>"
      "$JS.ACK.KV_mainline-2dqueue-2dcoordinator_branch-5fpushes.>"
      "$JS.FC.KV_mainline-2dqueue-2dcoordinator_branch-5fpushes.>"
      "$KV.mainline-2dqueue-2dcoordinator_branch-5fpushes.>"
      "$JS.API.STREAM.INFO.KV_mainline-2dqueue-2dcoordinator_request-5fkeys"
      "$JS.API.STREAM.CREATE.KV_mainline-2dqueue-2dcoordinator_request-5fkeys"
      "$JS.API.STREAM.UPDATE.KV_mainline-2dqueue-2dcoordinator_request-5fkeys"
      "$JS.API.STREAM.MSG.GET.KV_mainline-2dqueue-2dcoordinator_request-5fkeys"
      "$JS.API.DIRECT.GET.KV_mainline-2dqueue-2dcoordinator_request-5fkeys"
      "$JS.API.DIRECT.GET.KV_mainline-2dqueue-2dcoordinator_request-5fkeys.>"
      "$JS.API.CONSUMER.*.KV_mainline-2dqueue-2dcoordinator_request-5fkeys"
      "$JS.API.CONSUMER.*.KV_mainline-2dqueue-2dcoordinator_request-5fkeys.>"
      "$JS.API.CONSUMER.DURABLE.CREATE.KV_mainline-2dqueue-2dcoordinator_request-5fkeys.>"
      "$JS.API.CONSUMER.MSG.NEXT.KV_mainline-2dqueue-2dcoordinator_request-5fkeys.>"
      "$JS.ACK.KV_mainline-2dqueue-2dcoordinator_request-5fkeys.>"
      "$JS.FC.KV_mainline-2dqueue-2dcoordinator_request-5fkeys.>"
      "$KV.mainline-2dqueue-2dcoordinator_request-5fkeys.>"
      "$JS.API.STREAM.INFO.KV_mainline-2dqueue-2dcoordinator_queue-5finsight-5fdays"
      "$JS.API.STREAM.CREATE.KV_mainline-2dqueue-2dcoordinator_queue-5finsight-5fdays"
      "$JS.API.STREAM.UPDATE.KV_mainline-2dqueue-2dcoordinator_queue-5finsight-5fdays"
      "$JS.API.STREAM.MSG.GET.KV_mainline-2dqueue-2dcoordinator_queue-5finsight-5fdays"
      "$JS.API.DIRECT.GET.KV_mainline-2dqueue-2dcoordinator_queue-5finsight-5fdays"
      "$JS.API.DIRECT.GET.KV_mainline-2dqueue-2dcoordinator_queue-5finsight-5fdays.>"
      "$JS.API.CONSUMER.*.KV_mainline-2dqueue-2dcoordinator_queue-5finsight-5fdays"
      "$JS.API.CONSUMER.*.KV_mainline-2dqueue-2dcoordinator_queue-5finsight-5fdays.>"
      "$JS.API.CONSUMER.DURABLE.CREATE.KV_mainline-2dqueue-2dcoordinator_queue-5finsight-5fdays.>"
      "$JS.API.CONSUMER.MSG.NEXT.KV_mainline-2dqueue-2dcoordinator_queue-5finsight-5fdays.>"
      "$JS.ACK.KV_mainline-2dqueue-2dcoordinator_queue-5finsight-5fdays.>"
      "$JS.FC.KV_mainline-2dqueue-2dcoordinator_queue-5finsight-5fdays.>"
      "$KV.mainline-2dqueue-2dcoordinator_queue-5finsight-5fdays.>"
      "$JS.API.STREAM.INFO.KV_mainline_coordinator_leases"
      "$JS.API.STREAM.CREATE.KV_mainline_coordinator_leases"
      "$JS.API.STREAM.UPDATE.KV_mainline_coordinator_leases"
      "$JS.API.STREAM.MSG.GET.KV_mainline_coordinator_leases"
      "$JS.API.DIRECT.GET.KV_mainline_coordinator_leases"
      "$JS.API.DIRECT.GET.KV_mainline_coordinator_leases.>"
      "$JS.API.CONSUMER.*.KV_mainline_coordinator_leases"
      "$JS.API.CONSUMER.*.KV_mainline_coordinator_leases.>"
      "$JS.API.CONSUMER.DURABLE.CREATE.KV_mainline_coordinator_leases.>"
      "$JS.API.CONSUMER.MSG.NEXT.KV_mainline_coordinator_leases.>"
      "$JS.ACK.KV_mainline_coordinator_leases.>"
      "$JS.FC.KV_mainline_coordinator_leases.>"
      "$KV.mainline_coordinator_leases.>"
    ]
  }
  subscribe: {
    allow: [
      "_INBOX.>"
    ]
  }
}
MAINLINE_BATCH_RUNNER = {
  publish: {
    allow: [
      "$JS.API.INFO"
      "$JS.API.STREAM.NAMES"
      "_INBOX.>"
      "mainline.results.test-run"
      "mainline.results.test-run-pushed"
      "mainline.results.merge"
      "mainline.jobs.test-results"
      "$JS.API.STREAM.INFO.MAINLINE_JOBS"
      "$JS.API.STREAM.CREATE.MAINLINE_JOBS"
      "$JS.API.STREAM.UPDATE.MAINLINE_JOBS"
      "$JS.API.STREAM.INFO.MAINLINE_RESULTS"
      "$JS.API.STREAM.CREATE.MAINLINE_RESULTS"
      "$JS.API.STREAM.UPDATE.MAINLINE_RESULTS"
      "$JS.API.STREAM.INFO.MAINLINE_EVENTS"
      "$JS.API.STREAM.CREATE.MAINLINE_EVENTS"
      "$JS.API.STREAM.UPDATE.MAINLINE_EVENTS"
      "$JS.API.STREAM.INFO.MAINLINE_JOBS"
      "$JS.API.STREAM.CREATE.MAINLINE_JOBS"
      "$JS.API.STREAM.UPDATE.MAINLINE_JOBS"
      "$JS.API.STREAM.MSG.GET.MAINLINE_JOBS"
      "$JS.API.DIRECT.GET.MAINLINE_JOBS"
      "$JS.API.DIRECT.GET.MAINLINE_JOBS.>"
      "$JS.API.CONSUMER.*.MAINLINE_JOBS"
      "$JS.API.CONSUMER.*.MAINLINE_JOBS.>"
      "$JS.API.CONSUMER.DURABLE.CREATE.MAINLINE_JOBS.>"
      "$JS.API.CONSUMER.MSG.NEXT.MAINLINE_JOBS.>"
      "$JS.ACK.MAINLINE_JOBS.>"
      "$JS.FC.MAINLINE_JOBS.>"
      "$JS.API.STREAM.INFO.MAINLINE_EVENTS"
      "$JS.API.STREAM.CREATE.MAINLINE_EVENTS"
      "$JS.API.STREAM.UPDATE.MAINLINE_EVENTS"
      "$JS.API.STREAM.MSG.GET.MAINLINE_EVENTS"
      "$JS.API.DIRECT.GET.MAINLINE_EVENTS"
      "$JS.API.DIRECT.GET.MAINLINE_EVENTS.>"
      "$JS.API.CONSUMER.*.MAINLINE_EVENTS"
      "$JS.API.CONSUMER.*.MAINLINE_EVENTS.>"
      "$JS.API.CONSUMER.DURABLE.CREATE.MAINLINE_EVENTS.>"
      "$JS.API.CONSUMER.MSG.NEXT.MAINLINE_EVENTS.>"
      "$JS.ACK.MAINLINE_EVENTS.>"
      "$JS.FC.MAINLINE_EVENTS.>"
      "$JS.API.STREAM.INFO.OBJ_mainline_test_run_outputs"
      "$JS.API.STREAM.CREATE.OBJ_mainline_test_run_outputs"
      "$JS.API.STREAM.UPDATE.OBJ_mainline_test_run_outputs"
      "$JS.API.STREAM.MSG.GET.OBJ_mainline_test_run_outputs"
      "$JS.API.DIRECT.GET.OBJ_mainline_test_run_outputs"
      "$JS.API.DIRECT.GET.OBJ_mainline_test_run_outputs.>"
      "$JS.API.CONSUMER.*.OBJ_mainline_test_run_outputs"
      "$JS.API.CONSUMER.*.OBJ_mainline_test_run_outputs.>"
      "$JS.API.CONSUMER.DURABLE.CREATE.OBJ_mainline_test_run_outputs.>"
      "$JS.API.CONSUMER.MSG.NEXT.OBJ_mainline_test_run_outputs.>"
      "$JS.ACK.OBJ_mainline_test_run_outputs.>"
      "$JS.FC.OBJ_mainline_test_run_outputs.>"
      "$O.mainline_test_run_outputs.>"
      "$JS.API.STREAM.INFO.KV_mainline_batch_runner_cancelled_runs"
      "$JS.API.STREAM.CREATE.KV_mainline_batch_runner_cancelled_runs"
      "$JS.API.STREAM.UPDATE.KV_mainline_batch_runner_cancelled_runs"
      "$JS.API.STREAM.MSG.GET.KV_mainline_batch_runner_cancelled_runs"
      "$JS.API.DIRECT.GET.KV_mainline_batch_runner_cancelled_runs"
      "$JS.API.DIRECT.GET.KV_mainline_batch_runner_cancelled_runs.>"
      "$JS.API.CONSUMER.*.KV_mainline_batch_runner_cancelled_runs"
      "$JS.API.CONSUMER.*.KV_mainline_batch_runner_cancelled_runs.>"
      "$JS.API.CONSUMER.DURABLE.CREATE.KV_mainline_batch_runner_cancelled_runs.>"
      "$JS.API.CONSUMER.MSG.NEXT.KV_mainline_batch_runner_cancelled_runs.>"
      "$JS.ACK.KV_mainline_batch_runner_cancelled_runs.>"
      "$JS.FC.KV_mainline_batch_runner_cancelled_runs.>"
      "$KV.mainline_batch_runner_cancelled_runs.>"
      "$JS.API.STREAM.INFO.KV_mainline_batch_runner_test_run_results"
      "$JS.API.STREAM.CREATE.KV_mainline_batch_runner_test_run_results"
      "$JS.API.STREAM.UPDATE.KV_mainline_batch_runner_test_run_results"
      "$JS.API.STREAM.MSG.GET.KV_mainline_batch_runner_test_run_results"
      "$JS.API.DIRECT.GET.KV_mainline_batch_runner_test_run_results"
      "$JS.API.DIRECT.GET.KV_mainline_batch_runner_test_run_results.>"
      "$JS.API.CONSUMER.*.KV_mainline_batch_runner_test_run_results"
      "$JS.API.CONSUMER.*.KV_mainline_batch_runner_test_run_results.>"
      "$JS.API.CONSUMER.DURABLE.CREATE.KV_mainline_batch_runner_test_run_results.>"
      "$JS.API.CONSUMER.MSG.NEXT.KV_mainline_batch_runner_test_run_results.>"
      "$JS.ACK.KV_mainline_batch_runner_test_run_results.>"
      "$JS.FC.KV_mainline_batch_runner_test_run_results.>"
      "$KV.mainline_batch_runner_test_run_results.>"
    ]
  }
  subscribe: {
    allow: [
      "_INBOX.>"
    ]
  }
}
MAINLINE_FLAKY_ANALYTICS = {
  publish: {
    allow: [
      "$JS.API.INFO"
      "$JS.API.STREAM.NAMES"
      "_INBOX.>"
      "mainline.events.test-status"
      "$JS.API.STREAM.INFO.MAINLINE_JOBS"
      "$JS.API.STREAM.CREATE.MAINLINE_JOBS"
      "$JS.API.STREAM.UPDATE.MAINLINE_JOBS"
      "$JS.API.STREAM.INFO.MAINLINE_RESULTS"
      "$JS.API.STREAM.CREATE.MAINLINE_RESULTS"
      "$JS.API.STREAM.UPDATE.MAINLINE_RESULTS"
      "$JS.API.STREAM.INFO.MAINLINE_EVENTS"
      "$JS.API.STREAM.CREATE.MAINLINE_EVENTS"
      "$JS.API.STREAM.UPDATE.MAINLINE_EVENTS"
      "$JS.API.STREAM.INFO.MAINLINE_JOBS"
      "$JS.API.STREAM.CREATE.MAINLINE_JOBS"
      "$JS.API.STREAM.UPDATE.MAINLINE_JOBS"
      "$JS.API.STREAM.MSG.GET.MAINLINE_JOBS"
      "$JS.API.DIRECT.GET.MAINLINE_JOBS"
      "$JS.API.DIRECT.GET.MAINLINE_JOBS.>"
      "$JS.API.CONSUMER.*.MAINLINE_JOBS"
      "$JS.API.CONSUMER.*.MAINLINE_JOBS.>"
      "$JS.API.CONSUMER.DURABLE.CREATE.MAINLINE_JOBS.>"
      "$JS.API.CONSUMER.MSG.NEXT.MAINLINE_JOBS.>"
      "$JS.ACK.MAINLINE_JOBS.>"
      "$JS.FC.MAINLINE_JOBS.>"
      "$JS.API.STREAM.INFO.KV_mainline-2dflaky-2danalytics_repositories"
      "$JS.API.STREAM.CREATE.KV_mainline-2dflaky-2danalytics_repositories"
      "$JS.API.STREAM.UPDATE.KV_mainline-2dflaky-2danalytics_repositories"
      "$JS.API.STREAM.MSG.GET.KV_mainline-2dflaky-2danalytics_repositories"
      "$JS.API.DIRECT.GET.KV_mainline-2dflaky-2danalytics_repositories"
      "$JS.API.DIRECT.GET.KV_mainline-2dflaky-2danalytics_repositories.>"
      "$JS.API.CONSUMER.*.KV_mainline-2dflaky-2danalytics_repositories"
      "$JS.API.CONSUMER.*.KV_mainline-2dflaky-2danalytics_repositories.>"
      "$JS.API.CONSUMER.DURABLE.CREATE.KV_mainline-2dflaky-2danalytics_repositories.>"
      "$JS.API.CONSUMER.MSG.NEXT.KV_mainline-2dflaky-2danalytics_repositories.>"
      "$JS.ACK.KV_mainline-2dflaky-2danalytics_repositories.>"
      "$JS.FC.KV_mainline-2dflaky-2danalytics_repositories.>"
      "$KV.mainline-2dflaky-2danalytics_repositories.>"
      "$JS.API.STREAM.INFO.KV_mainline-2dflaky-2danalytics_snapshots"
      "$JS.API.STREAM.CREATE.KV_mainline-2dflaky-2danalytics_snapshots"
      "$JS.API.STREAM.UPDATE.KV_mainline-2dflaky-2danalytics_snapshots"
      "$JS.API.STREAM.MSG.GET.KV_mainline-2dflaky-2danalytics_snapshots"
      "$JS.API.DIRECT.GET.KV_mainline-2dflaky-2danalytics_snapshots"
      "$JS.API.DIRECT.GET.KV_mainline-2dflaky-2danalytics_snapshots.>"
      "$JS.API.CONSUMER.*.KV_mainline-2dflaky-2danalytics_snapshots"
      "$JS.API.CONSUMER.*.KV_mainline-2dflaky-2danalytics_snapshots.>"
      "$JS.API.CONSUMER.DURABLE.CREATE.KV_mainline-2dflaky-2danalytics_snapshots.>"
      "$JS.API.CONSUMER.MSG.NEXT.KV_mainline-2dflaky-2danalytics_snapshots.>"
      "$JS.ACK.KV_mainline-2dflaky-2danalytics_snapshots.>"
      "$JS.FC.KV_mainline-2dflaky-2danalytics_snapshots.>"
      "$KV.mainline-2dflaky-2danalytics_snapshots.>"
      "$JS.API.STREAM.INFO.KV_mainline-2dflaky-2danalytics_snapshot-5fparts"
      "$JS.API.STREAM.CREATE.KV_mainline-2dflaky-2danalytics_snapshot-5fparts"
      "$JS.API.STREAM.UPDATE.KV_mainline-2dflaky-2danalytics_snapshot-5fparts"
      "$JS.API.STREAM.MSG.GET.KV_mainline-2dflaky-2danalytics_snapshot-5fparts"
      "$JS.API.DIRECT.GET.KV_mainline-2dflaky-2danalytics_snapshot-5fparts"
      "$JS.API.DIRECT.GET.KV_mainline-2dflaky-2danalytics_snapshot-5fparts.>"
      "$JS.API.CONSUMER.*.KV_mainline-2dflaky-2danalytics_snapshot-5fparts"
      "$JS.API.CONSUMER.*.KV_mainline-2dflaky-2danalytics_snapshot-5fparts.>"
      "$JS.API.CONSUMER.DURABLE.CREATE.KV_mainline-2dflaky-2danalytics_snapshot-5fparts.>"
      "$JS.API.CONSUMER.MSG.NEXT.KV_mainline-2dflaky-2danalytics_snapshot-5fparts.>"
      "$JS.ACK.KV_mainline-2dflaky-2danalytics_snapshot-5fparts.>"
      "$JS.FC.KV_mainline-2dflaky-2danalytics_snapshot-5fparts.>"
      "$KV.mainline-2dflaky-2danalytics_snapshot-5fparts.>"
      "$JS.API.STREAM.INFO.KV_mainline-2dflaky-2danalytics_test-5fannotations"
      "$JS.API.STREAM.CREATE.KV_mainline-2dflaky-2danalytics_test-5fannotations"
      "$JS.API.STREAM.UPDATE.KV_mainline-2dflaky-2danalytics_test-5fannotations"
      "$JS.API.STREAM.MSG.GET.KV_mainline-2dflaky-2danalytics_test-5fannotations"
      "$JS.API.DIRECT.GET.KV_mainline-2dflaky-2danalytics_test-5fannotations"
      "$JS.API.DIRECT.GET.KV_mainline-2dflaky-2danalytics_test-5fannotations.>"
      "$JS.API.CONSUMER.*.KV_mainline-2dflaky-2danalytics_test-5fannotations"
      "$JS.API.CONSUMER.*.KV_mainline-2dflaky-2danalytics_test-5fannotations.>"
      "$JS.API.CONSUMER.DURABLE.CREATE.KV_mainline-2dflaky-2danalytics_test-5fannotations.>"
      "$JS.API.CONSUMER.MSG.NEXT.KV_mainline-2dflaky-2danalytics_test-5fannotations.>"
      "$JS.ACK.KV_mainline-2dflaky-2danalytics_test-5fannotations.>"
      "$JS.FC.KV_mainline-2dflaky-2danalytics_test-5fannotations.>"
      "$KV.mainline-2dflaky-2danalytics_test-5fannotations.>"
      "$JS.API.STREAM.INFO.KV_mainline-2dflaky-2danalytics_journal"
      "$JS.API.STREAM.CREATE.KV_mainline-2dflaky-2danalytics_journal"
      "$JS.API.STREAM.UPDATE.KV_mainline-2dflaky-2danalytics_journal"
      "$JS.API.STREAM.MSG.GET.KV_mainline-2dflaky-2danalytics_journal"
      "$JS.API.DIRECT.GET.KV_mainline-2dflaky-2danalytics_journal"
      "$JS.API.DIRECT.GET.KV_mainline-2dflaky-2danalytics_journal.>"
      "$JS.API.CONSUMER.*.KV_mainline-2dflaky-2danalytics_journal"
      "$JS.API.CONSUMER.*.KV_mainline-2dflaky-2danalytics_journal.>"
      "$JS.API.CONSUMER.DURABLE.CREATE.KV_mainline-2dflaky-2danalytics_journal.>"
      "$JS.API.CONSUMER.MSG.NEXT.KV_mainline-2dflaky-2danalytics_journal.>"
      "$JS.ACK.KV_mainline-2dflaky-2danalytics_journal.>"
      "$JS.FC.KV_mainline-2dflaky-2danalytics_journal.>"
      "$KV.mainline-2dflaky-2danalytics_journal.>"
      "$JS.API.STREAM.INFO.KV_mainline-2dflaky-2danalytics_journal-5fheads"
      "$JS.API.STREAM.CREATE.KV_mainline-2dflaky-2danalytics_journal-5fheads"
      "$JS.API.STREAM.UPDATE.KV_mainline-2dflaky-2danalytics_journal-5fheads"
      "$JS.API.STREAM.MSG.GET.KV_mainline-2dflaky-2danalytics_journal-5fheads"
      "$JS.API.DIRECT.GET.KV_mainline-2dflaky-2danalytics_journal-5fheads"
      "$JS.API.DIRECT.GET.KV_mainline-2dflaky-2danalytics_journal-5fheads.>"
      "$JS.API.CONSUMER.*.KV_mainline-2dflaky-2danalytics_journal-5fheads"
      "$JS.API.CONSUMER.*.KV_mainline-2dflaky-2danalytics_journal-5fheads.>"
      "$JS.API.CONSUMER.DURABLE.CREATE.KV_mainline-2dflaky-2danalytics_journal-5fheads.>"
      "$JS.API.CONSUMER.MSG.NEXT.KV_mainline-2dflaky-2danalytics_journal-5fheads.>"
      "$JS.ACK.KV_mainline-2dflaky-2danalytics_journal-5fheads.>"
      "$JS.FC.KV_mainline-2dflaky-2danalytics_journal-5fheads.>"
      "$KV.mainline-2dflaky-2danalytics_journal-5fheads.>"
      "$JS.API.STREAM.INFO.KV_mainline-2dflaky-2danalytics_uploads"
      "$JS.API.STREAM.CREATE.KV_mainline-2dflaky-2danalytics_uploads"
      "$JS.API.STREAM.UPDATE.KV_mainline-2dflaky-2danalytics_uploads"
      "$JS.API.STREAM.MSG.GET.KV_mainline-2dflaky-2danalytics_uploads"
      "$JS.API.DIRECT.GET.KV_mainline-2dflaky-2danalytics_uploads"
      "$JS.API.DIRECT.GET.KV_mainline-2dflaky-2danalytics_uploads.>"
      "$JS.API.CONSUMER.*.KV_mainline-2dflaky-2danalytics_uploads"
      "$JS.API.CONSUMER.*.KV_mainline-2dflaky-2danalytics_uploads.>"
      "$JS.API.CONSUMER.DURABLE.CREATE.KV_mainline-2dflaky-2danalytics_uploads.>"
      "$JS.API.CONSUMER.MSG.NEXT.KV_mainline-2dflaky-2danalytics_uploads.>"
      "$JS.ACK.KV_mainline-2dflaky-2danalytics_uploads.>"
      "$JS.FC.KV_mainline-2dflaky-2danalytics_uploads.>"
      "$KV.mainline-2dflaky-2danalytics_uploads.>"
      "$JS.API.STREAM.INFO.KV_mainline-2dflaky-2danalytics_upload-5fparts"
      "$JS.API.STREAM.CREATE.KV_mainline-2dflaky-2danalytics_upload-5fparts"
      "$JS.API.STREAM.UPDATE.KV_mainline-2dflaky-2danalytics_upload-5fparts"
      "$JS.API.STREAM.MSG.GET.KV_mainline-2dflaky-2danalytics_upload-5fparts"
      "$JS.API.DIRECT.GET.KV_mainline-2dflaky-2danalytics_upload-5fparts"
      "$JS.API.DIRECT.GET.KV_mainline-2dflaky-2danalytics_upload-5fparts.>"
      "$JS.API.CONSUMER.*.KV_mainline-2dflaky-2danalytics_upload-5fparts"
      "$JS.API.CONSUMER.*.KV_mainline-2dflaky-2danalytics_upload-5fparts.>"
      "$JS.API.CONSUMER.DURABLE.CREATE.KV_mainline-2dflaky-2danalytics_upload-5fparts.>"
      "$JS.API.CONSUMER.MSG.NEXT.KV_mainline-2dflaky-2danalytics_upload-5fparts.>"
      "$JS.ACK.KV_mainline-2dflaky-2danalytics_upload-5fparts.>"
      "$JS.FC.KV_mainline-2dflaky-2danalytics_upload-5fparts.>"
      "$KV.mainline-2dflaky-2danalytics_upload-5fparts.>"
    ]
  }
  subscribe: {
    allow: [
      "_INBOX.>"
    ]
  }
}
MAINLINE_METRICS = {
  publish: {
    allow: [
      "$JS.API.INFO"
      "$JS.API.STREAM.NAMES"
      "_INBOX.>"
      "$JS.API.STREAM.INFO.MAINLINE_JOBS"
      "$JS.API.STREAM.CREATE.MAINLINE_JOBS"
      "$JS.API.STREAM.UPDATE.MAINLINE_JOBS"
      "$JS.API.STREAM.INFO.MAINLINE_RESULTS"
      "$JS.API.STREAM.CREATE.MAINLINE_RESULTS"
      "$JS.API.STREAM.UPDATE.MAINLINE_RESULTS"
      "$JS.API.STREAM.INFO.MAINLINE_EVENTS"
      "$JS.API.STREAM.CREATE.MAINLINE_EVENTS"
      "$JS.API.STREAM.UPDATE.MAINLINE_EVENTS"
      "$JS.API.STREAM.INFO.MAINLINE_EVENTS"
      "$JS.API.STREAM.CREATE.MAINLINE_EVENTS"
      "$JS.API.STREAM.UPDATE.MAINLINE_EVENTS"
      "$JS.API.STREAM.MSG.GET.MAINLINE_EVENTS"
      "$JS.API.DIRECT.GET.MAINLINE_EVENTS"
      "$JS.API.DIRECT.GET.MAINLINE_EVENTS.>"
      "$JS.API.CONSUMER.*.MAINLINE_EVENTS"
      "$JS.API.CONSUMER.*.MAINLINE_EVENTS.>"
      "$JS.API.CONSUMER.DURABLE.CREATE.MAINLINE_EVENTS.>"
      "$JS.API.CONSUMER.MSG.NEXT.MAINLINE_EVENTS.>"
      "$JS.ACK.MAINLINE_EVENTS.>"
      "$JS.FC.MAINLINE_EVENTS.>"
      "$JS.API.STREAM.INFO.KV_mainline-2dmetrics_observations"
      "$JS.API.STREAM.CREATE.KV_mainline-2dmetrics_observations"
      "$JS.API.STREAM.UPDATE.KV_mainline-2dmetrics_observations"
      "$JS.API.STREAM.MSG.GET.KV_mainline-2dmetrics_observations"
      "$JS.API.DIRECT.GET.KV_mainline-2dmetrics_observations"
      "$JS.API.DIRECT.GET.KV_mainline-2dmetrics_observations.>"
      "$JS.API.CONSUMER.*.KV_mainline-2dmetrics_observations"
      "$JS.API.CONSUMER.*.KV_mainline-2dmetrics_observations.>"
      "$JS.API.CONSUMER.DURABLE.CREATE.KV_mainline-2dmetrics_observations.>"
      "$JS.API.CONSUMER.MSG.NEXT.KV_mainline-2dmetrics_observations.>"
      "$JS.ACK.KV_mainline-2dmetrics_observations.>"
      "$JS.FC.KV_mainline-2dmetrics_observations.>"
      "$KV.mainline-2dmetrics_observations.>"
      "$JS.API.STREAM.INFO.KV_mainline-2dmetrics_test-5fstatuses"
      "$JS.API.STREAM.CREATE.KV_mainline-2dmetrics_test-5fstatuses"
      "$JS.API.STREAM.UPDATE.KV_mainline-2dmetrics_test-5fstatuses"
      "$JS.API.STREAM.MSG.GET.KV_mainline-2dmetrics_test-5fstatuses"
      "$JS.API.DIRECT.GET.KV_mainline-2dmetrics_test-5fstatuses"
      "$JS.API.DIRECT.GET.KV_mainline-2dmetrics_test-5fstatuses.>"
      "$JS.API.CONSUMER.*.KV_mainline-2dmetrics_test-5fstatuses"
      "$JS.API.CONSUMER.*.KV_mainline-2dmetrics_test-5fstatuses.>"
      "$JS.API.CONSUMER.DURABLE.CREATE.KV_mainline-2dmetrics_test-5fstatuses.>"
      "$JS.API.CONSUMER.MSG.NEXT.KV_mainline-2dmetrics_test-5fstatuses.>"
      "$JS.ACK.KV_mainline-2dmetrics_test-5fstatuses.>"
      "$JS.FC.KV_mainline-2dmetrics_test-5fstatuses.>"
      "$KV.mainline-2dmetrics_test-5fstatuses.>"
      "$JS.API.STREAM.INFO.KV_mainline-2dmetrics_active-5ftest-5fruns"
      "$JS.API.STREAM.CREATE.KV_mainline-2dmetrics_active-5ftest-5fruns"
      "$JS.API.STREAM.UPDATE.KV_mainline-2dmetrics_active-5ftest-5fruns"
      "$JS.API.STREAM.MSG.GET.KV_mainline-2dmetrics_active-5ftest-5fruns"
      "$JS.API.DIRECT.GET.KV_mainline-2dmetrics_active-5ftest-5fruns"
      "$JS.API.DIRECT.GET.KV_mainline-2dmetrics_active-5ftest-5fruns.>"
      "$JS.API.CONSUMER.*.KV_mainline-2dmetrics_active-5ftest-5fruns"
      "$JS.API.CONSUMER.*.KV_mainline-2dmetrics_active-5ftest-5fruns.>"
      "$JS.API.CONSUMER.DURABLE.CREATE.KV_mainline-2dmetrics_active-5ftest-5fruns.>"
      "$JS.API.CONSUMER.MSG.NEXT.KV_mainline-2dmetrics_active-5ftest-5fruns.>"
      "$JS.ACK.KV_mainline-2dmetrics_active-5ftest-5fruns.>"
      "$JS.FC.KV_mainline-2dmetrics_active-5ftest-5fruns.>"
      "$KV.mainline-2dmetrics_active-5ftest-5fruns.>"
      "$JS.API.STREAM.INFO.KV_mainline-2dmetrics_pull-5frequest-5ftimelines"
      "$JS.API.STREAM.CREATE.KV_mainline-2dmetrics_pull-5frequest-5ftimelines"
      "$JS.API.STREAM.UPDATE.KV_mainline-2dmetrics_pull-5frequest-5ftimelines"
      "$JS.API.STREAM.MSG.GET.KV_mainline-2dmetrics_pull-5frequest-5ftimelines"
      "$JS.API.DIRECT.GET.KV_mainline-2dmetrics_pull-5frequest-5ftimelines"
      "$JS.API.DIRECT.GET.KV_mainline-2dmetrics_pull-5frequest-5ftimelines.>"
      "$JS.API.CONSUMER.*.KV_mainline-2dmetrics_pull-5frequest-5ftimelines"
      "$JS.API.CONSUMER.*.KV_mainline-2dmetrics_pull-5frequest-5ftimelines.>"
      "$JS.API.CONSUMER.DURABLE.CREATE.KV_mainline-2dmetrics_pull-5frequest-5ftimelines.>"
      "$JS.API.CONSUMER.MSG.NEXT.KV_mainline-2dmetrics_pull-5frequest-5ftimelines.>"
      "$JS.ACK.KV_mainline-2dmetrics_pull-5frequest-5ftimelines.>"
      "$JS.FC.KV_mainline-2dmetrics_pull-5frequest-5ftimelines.>"
      "$KV.mainline-2dmetrics_pull-5frequest-5ftimelines.>"
      "$JS.API.STREAM.INFO.KV_mainline-2dmetrics_known-5fqueues"
      "$JS.API.STREAM.CREATE.KV_mainline-2dmetrics_known-5fqueues"
      "$JS.API.STREAM.UPDATE.KV_mainline-2dmetrics_known-5fqueues"
      "$JS.API.STREAM.MSG.GET.KV_mainline-2dmetrics_known-5fqueues"
      "$JS.API.DIRECT.GET.KV_mainline-2dmetrics_known-5fqueues"
      "$JS.API.DIRECT.GET.KV_mainline-2dmetrics_known-5fqueues.>"
      "$JS.API.CONSUMER.*.KV_mainline-2dmetrics_known-5fqueues"
      "$JS.API.CONSUMER.*.KV_mainline-2dmetrics_known-5fqueues.>"
      "$JS.API.CONSUMER.DURABLE.CREATE.KV_mainline-2dmetrics_known-5fqueues.>"
      "$JS.API.CONSUMER.MSG.NEXT.KV_mainline-2dmetrics_known-5fqueues.>"
      "$JS.ACK.KV_mainline-2dmetrics_known-5fqueues.>"
      "$JS.FC.KV_mainline-2dmetrics_known-5fqueues.>"
      "$KV.mainline-2dmetrics_known-5fqueues.>"
    ]
  }
  subscribe: {
    allow: [
      "_INBOX.>"
    ]
  }
}
MAINLINE_WEBHOOKS = {
  publish: {
    allow: [
      "$JS.API.INFO"
      "$JS.API.STREAM.NAMES"
      "_INBOX.>"
      "mainline.webhooks.deliveries.*"
      "$JS.API.STREAM.INFO.MAINLINE_JOBS"
      "$JS.API.STREAM.CREATE.MAINLINE_JOBS"
      "$JS.API.STREAM.UPDATE.MAINLINE_JOBS"
      "$JS.API.STREAM.INFO.MAINLINE_RESULTS"
      "$JS.API.STREAM.CREATE.MAINLINE_RESULTS"
      "$JS.API.STREAM.UPDATE.MAINLINE_RESULTS"
      "$JS.API.STREAM.INFO.MAINLINE_EVENTS"
      "$JS.API.STREAM.CREATE.MAINLINE_EVENTS"
      "$JS.API.STREAM.UPDATE.MAINLINE_EVENTS"
      "$JS.API.STREAM.INFO.MAINLINE_EVENTS"
      "$JS.API.STREAM.CREATE.MAINLINE_EVENTS"
      "$JS.API.STREAM.UPDATE.MAINLINE_EVENTS"
      "$JS.API.STREAM.MSG.GET.MAINLINE_EVENTS"
      "$JS.API.DIRECT.GET.MAINLINE_EVENTS"
      "$JS.API.DIRECT.GET.MAINLINE_EVENTS.>"
      "$JS.API.CONSUMER.*.MAINLINE_EVENTS"
      "$JS.API.CONSUMER.*.MAINLINE_EVENTS.>"
      "$JS.API.CONSUMER.DURABLE.CREATE.MAINLINE_EVENTS.>"
      "$JS.API.CONSUMER.MSG.NEXT.MAINLINE_EVENTS.>"
      "$JS.ACK.MAINLINE_EVENTS.>"
      "$JS.FC.MAINLINE_EVENTS.>"
      "$JS.API.STREAM.INFO.WEBHOOK_DELIVERIES"
      "$JS.API.STREAM.CREATE.WEBHOOK_DELIVERIES"
      "$JS.API.STREAM.UPDATE.WEBHOOK_DELIVERIES"
      "$JS.API.STREAM.MSG.GET.WEBHOOK_DELIVERIES"
      "$JS.API.DIRECT.GET.WEBHOOK_DELIVERIES"
      "$JS.API.DIRECT.GET.WEBHOOK_DELIVERIES.>"
      "$JS.API.CONSUMER.*.WEBHOOK_DELIVERIES"
      "$JS.API.CONSUMER.*.WEBHOOK_DELIVERIES.>"
      "$JS.API.CONSUMER.DURABLE.CREATE.WEBHOOK_DELIVERIES.>"
      "$JS.API.CONSUMER.MSG.NEXT.WEBHOOK_DELIVERIES.>"
      "$JS.ACK.WEBHOOK_DELIVERIES.>"
      "$JS.FC.WEBHOOK_DELIVERIES.>"
      "$JS.API.STREAM.PURGE.WEBHOOK_DELIVERIES"
      "$JS.API.STREAM.INFO.KV_mainline-2dwebhooks_subscriptions"
      "$JS.API.STREAM.CREATE.KV_mainline-2dwebhooks_subscriptions"
      "$JS.API.STREAM.UPDATE.KV_mainline-2dwebhooks_subscriptions"
      "$JS.API.STREAM.MSG.GET.KV_mainline-2dwebhooks_subscriptions"
      "$JS.API.DIRECT.GET.KV_mainline-2dwebhooks_subscriptions"
      "$JS.API.DIRECT.GET.KV_mainline-2dwebhooks_subscriptions.>"
      "$JS.API.CONSUMER.*.KV_mainline-2dwebhooks_subscriptions"
      "$JS.API.CONSUMER.*.KV_mainline-2dwebhooks_subscriptions.>"
      "$JS.API.CONSUMER.DURABLE.CREATE.KV_mainline-2dwebhooks_subscriptions.>"
      "$JS.API.CONSUMER.MSG.NEXT.KV_mainline-2dwebhooks_subscriptions.>"
      "$JS.ACK.KV_mainline-2dwebhooks_subscriptions.>"
      "$JS.FC.KV_mainline-2dwebhooks_subscriptions.>"
      "$KV.mainline-2dwebhooks_subscriptions.>"
      "$JS.API.STREAM.INFO.KV_mainline-2dwebhooks_deliveries"
      "$JS.API.STREAM.CREATE.KV_mainline-2dwebhooks_deliveries"
      "$JS.API.STREAM.UPDATE.KV_mainline-2dwebhooks_deliveries"
      "$JS.API.STREAM.MSG.GET.KV_mainline-2dwebhooks_deliveries"
      "$JS.API.DIRECT.GET.KV_mainline-2dwebhooks_deliveries"
      "$JS.API.DIRECT.GET.KV_mainline-2dwebhooks_deliveries.>"
      "$JS.API.CONSUMER.*.KV_mainline-2dwebhooks_deliveries"
      "$JS.API.CONSUMER.*.KV_mainline-2dwebhooks_deliveries.>"
      "$JS.API.CONSUMER.DURABLE.CREATE.KV_mainline-2dwebhooks_deliveries.>"
      "$JS.API.CONSUMER.MSG.NEXT.KV_mainline-2dwebhooks_deliveries.>"
      "$JS.ACK.KV_mainline-2dwebhooks_deliveries.>"
      "$JS.FC.KV_mainline-2dwebhooks_deliveries.>"
      "$KV.mainline-2dwebhooks_deliveries.>"
      "$JS.API.STREAM.INFO.KV_mainline-2dwebhooks_github-5fcalls"
      "$JS.API.STREAM.CREATE.KV_mainline-2dwebhooks_github-5fcalls"
      "$JS.API.STREAM.UPDATE.KV_mainline-2dwebhooks_github-5fcalls"
      "$JS.API.STREAM.MSG.GET.KV_mainline-2dwebhooks_github-5fcalls"
      "$JS.API.DIRECT.GET.KV_mainline-2dwebhooks_github-5fcalls"
      "$JS.API.DIRECT.GET.KV_mainline-2dwebhooks_github-5fcalls.>"
      "$JS.API.CONSUMER.*.KV_mainline-2dwebhooks_github-5fcalls"
      "$JS.API.CONSUMER.*.KV_mainline-2dwebhooks_github-5fcalls.>"
      "$JS.API.CONSUMER.DURABLE.CREATE.KV_mainline-2dwebhooks_github-5fcalls.>"
      "$JS.API.CONSUMER.MSG.NEXT.KV_mainline-2dwebhooks_github-5fcalls.>"
      "$JS.ACK.KV_mainline-2dwebhooks_github-5fcalls.>"
      "$JS.FC.KV_mainline-2dwebhooks_github-5fcalls.>"
      "$KV.mainline-2dwebhooks_github-5fcalls.>"
    ]
  }
  subscribe: {
    allow: [
      "_INBOX.>"
    ]
  }
}
# END NATS permissions
authorization {
  users = [
{{ join "\n" . }}
  ]
}
{{- end }}
