import { expect } from "chai";
import Ajv from "ajv";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import {
  chartDir,
  isObject,
  runnableServices,
  serviceConfigVariables,
  type Json,
  type JsonObject,
  type Manifest,
} from "./deploy-files.js";

// What Kubernetes requires of the chart's rendered manifests, and the chart's values against its schema.

const API_VERSIONS: Record<string, string> = {
  ConfigMap: "v1",
  Secret: "v1",
  Service: "v1",
  ServiceAccount: "v1",
  Deployment: "apps/v1",
  HorizontalPodAutoscaler: "autoscaling/v2",
  PodDisruptionBudget: "policy/v1",
  ServiceMonitor: "monitoring.coreos.com/v1",
  Ingress: "networking.k8s.io/v1",
};
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
/** Set by the chart for the image, not read by the services' config schemas. */
const IMAGE_VARIABLES = new Set(["MAINLINE_SERVICE", "HOME"]);

export const chartValues = parse(readFileSync(join(chartDir, "values.yaml"), "utf8")) as JsonObject;
export const readValuesFile = (file: string) =>
  parse(readFileSync(join(chartDir, file), "utf8")) as JsonObject;
const schema = JSON.parse(readFileSync(join(chartDir, "values.schema.json"), "utf8")) as object;
const validateValues = new Ajv({ allErrors: true }).compile(schema);

export function schemaErrors(values: Json): string[] {
  if (validateValues(values)) return [];
  return (validateValues.errors ?? []).map((e) => `${e.dataPath} ${e.message ?? ""}`);
}

interface Container {
  name: string;
  image: string;
  ports?: { name?: string; containerPort: number }[];
  env?: { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }[];
  envFrom?: { configMapRef?: { name: string } }[];
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  startupProbe?: Probe;
  resources?: { requests?: Record<string, unknown>; limits?: Record<string, unknown> };
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
}
interface Probe {
  httpGet?: { path: string; port: string | number };
  grpc?: { port: number };
}
export interface DeploymentSpec {
  replicas?: number;
  selector: { matchLabels: Record<string, string> };
  template: {
    metadata: { labels: Record<string, string> };
    spec: {
      containers: Container[];
      securityContext?: { runAsNonRoot?: boolean };
      volumes?: { name: string; secret?: { secretName: string; defaultMode?: number } }[];
    };
  };
}

export const spec = <T>(m: Manifest) => m.spec as T;
export const ofKind = (manifests: Manifest[], kind: string) => manifests.filter((m) => m.kind === kind);
export const componentOf = (m: Manifest) => m.metadata.labels?.["app.kubernetes.io/component"] ?? "";
const selects = (selector: Record<string, string>, labels: Record<string, string>) =>
  Object.entries(selector).every(([k, v]) => labels[k] === v);

/** Extra environment a values file asks for (global and per component), which the services do not declare. */
function extraEnvNames(values: JsonObject): Set<string> {
  const names = new Set<string>(Object.keys(isObject(values.env) ? values.env : {}));
  const components = isObject(values.components) ? values.components : {};
  for (const component of Object.values(components)) {
    if (isObject(component) && isObject(component.env))
      for (const key of Object.keys(component.env)) names.add(key);
  }
  return names;
}

export function checkManifests(manifests: Manifest[], values: JsonObject): void {
  const seen = new Set<string>();
  for (const m of manifests) {
    const where = `${m.kind}/${m.metadata?.name}`;
    expect(m.apiVersion, `${where} apiVersion`).to.equal(API_VERSIONS[m.kind]);
    expect(m.metadata?.name, `${where} metadata.name`).to.be.a("string").and.match(DNS_LABEL);
    expect(m.metadata.name.length, `${where} name length`).to.be.at.most(63);
    expect(seen.has(where), `${where} rendered twice`).to.equal(false);
    seen.add(where);
  }

  const deployments = ofKind(manifests, "Deployment");
  const services = ofKind(manifests, "Service");
  const configMaps = new Map(
    ofKind(manifests, "ConfigMap").map((m) => [m.metadata.name, m.data as JsonObject]),
  );
  const secrets = new Set(ofKind(manifests, "Secret").map((m) => m.metadata.name));
  const existingSecret = isObject(values.secrets) ? values.secrets.existingSecret : undefined;
  if (typeof existingSecret === "string" && existingSecret) secrets.add(existingSecret);
  const extras = extraEnvNames(values);
  const allServiceVariables = new Set(
    runnableServices().flatMap((name) => [...serviceConfigVariables(name)]),
  );

  expect(deployments.map(componentOf).sort(), "one Deployment per service").to.deep.equal(runnableServices());
  for (const d of deployments) {
    const component = componentOf(d);
    const where = `Deployment/${d.metadata.name}`;
    const s = spec<DeploymentSpec>(d);
    expect(selects(s.selector.matchLabels, s.template.metadata.labels), `${where} selector`).to.equal(true);
    expect(s.template.spec.securityContext?.runAsNonRoot, `${where} runAsNonRoot`).to.equal(true);
    expect(s.template.spec.containers, `${where} containers`).to.have.length.greaterThan(0);
    for (const c of s.template.spec.containers) {
      expect(c.image, `${where} image`).to.be.a("string").and.not.equal("");
      expect(c.ports, `${where} ports`).to.have.length.greaterThan(0);
      for (const p of c.ports ?? []) expect(p.containerPort, `${where} containerPort`).to.be.within(1, 65535);
      expect(c.resources?.requests, `${where} resources.requests`).to.be.an("object");
      expect(c.resources?.limits?.memory, `${where} resources.limits.memory`).to.exist;
      const port = c.ports![0]!;
      for (const probe of ["livenessProbe", "readinessProbe", "startupProbe"] as const) {
        expect(c[probe], `${where} ${probe}`).to.be.an("object");
        if (component === "gateway") {
          expect(c[probe]!.httpGet?.port, `${where} ${probe} port`).to.equal(port.name);
        } else {
          expect(c[probe]!.grpc?.port, `${where} ${probe} grpc port`).to.equal(port.containerPort);
        }
      }
      if (component === "gateway") {
        expect(c.livenessProbe!.httpGet?.path).to.equal("/healthz");
        expect(c.readinessProbe!.httpGet?.path).to.equal("/readyz");
      }

      // Every variable reaches the service it is meant for: the container's own, and its ConfigMaps'.
      const names = new Set<string>();
      // A shared ConfigMap goes to every service: each of its variables must be read by at least one.
      for (const source of c.envFrom ?? []) {
        const data = configMaps.get(source.configMapRef?.name ?? "");
        expect(data, `${where} envFrom ConfigMap ${source.configMapRef?.name}`).to.be.an("object");
        for (const key of Object.keys(data!)) {
          const ok = allServiceVariables.has(key) || extras.has(key);
          expect(ok, `ConfigMap ${source.configMapRef?.name} sets ${key}, which no service reads`).to.equal(
            true,
          );
        }
      }
      for (const e of c.env ?? []) {
        expect(e.value !== undefined || e.valueFrom !== undefined, `${where} env ${e.name}`).to.equal(true);
        const ref = e.valueFrom?.secretKeyRef;
        if (ref) expect(secrets.has(ref.name), `${where} env ${e.name} Secret ${ref.name}`).to.equal(true);
        names.add(e.name);
      }
      const known = serviceConfigVariables(component);
      for (const name of names) {
        const ok = known.has(name) || IMAGE_VARIABLES.has(name) || extras.has(name);
        expect(ok, `${where} sets ${name}, which services/${component}/src/config.ts does not read`).to.equal(
          true,
        );
      }
      const fromConfigMaps = (c.envFrom ?? []).flatMap((src) =>
        Object.keys(configMaps.get(src.configMapRef?.name ?? "") ?? {}),
      );
      expect(fromConfigMaps, `${where} NATS_URL`).to.include("NATS_URL");
      const env = new Map((c.env ?? []).map((e) => [e.name, e.value]));
      expect(env.get("MAINLINE_SERVICE"), `${where} MAINLINE_SERVICE`).to.equal(component);
      if (component === "gateway") {
        // The gateway reaches each service through its Service name and port.
        for (const other of deployments.filter((o) => componentOf(o) !== "gateway")) {
          const variable = `${componentOf(other).toUpperCase().replaceAll("-", "_")}_ADDR`;
          const service = services.find((svc) => componentOf(svc) === componentOf(other))!;
          const servicePort = spec<{ ports: { port: number }[] }>(service).ports[0]!.port;
          expect(env.get(variable), `gateway ${variable}`).to.equal(
            `${service.metadata.name}:${servicePort}`,
          );
        }
      }
    }
  }

  for (const svc of services) {
    const where = `Service/${svc.metadata.name}`;
    const s = spec<{
      selector: Record<string, string>;
      ports: { port: number; targetPort: string | number }[];
    }>(svc);
    const targets = deployments.filter((d) =>
      selects(s.selector, spec<DeploymentSpec>(d).template.metadata.labels),
    );
    expect(targets, `${where} selects one Deployment`).to.have.length(1);
    const containerPorts = spec<DeploymentSpec>(targets[0]!).template.spec.containers.flatMap(
      (c) => c.ports ?? [],
    );
    expect(s.ports, `${where} ports`).to.have.length.greaterThan(0);
    for (const p of s.ports) {
      expect(p.port, `${where} port`).to.be.within(1, 65535);
      const found = containerPorts.some(
        (cp) => cp.name === p.targetPort || cp.containerPort === p.targetPort,
      );
      expect(found, `${where} targetPort ${p.targetPort}`).to.equal(true);
    }
  }

  for (const hpa of ofKind(manifests, "HorizontalPodAutoscaler")) {
    const s = spec<{
      scaleTargetRef: { kind: string; name: string };
      minReplicas: number;
      maxReplicas: number;
    }>(hpa);
    const target = deployments.find((d) => d.metadata.name === s.scaleTargetRef.name);
    expect(target, `HPA ${hpa.metadata.name} target`).to.exist;
    expect(
      spec<DeploymentSpec>(target!).replicas,
      "an autoscaled Deployment leaves replicas to the HPA",
    ).to.equal(undefined);
    expect(s.minReplicas).to.be.at.most(s.maxReplicas);
    expect((hpa.spec as JsonObject).metrics, `HPA ${hpa.metadata.name} metrics`).to.have.length.greaterThan(
      0,
    );
  }

  for (const pdb of ofKind(manifests, "PodDisruptionBudget")) {
    const s = pdb.spec as {
      selector: { matchLabels: Record<string, string> };
      minAvailable?: Json;
      maxUnavailable?: Json;
    };
    expect(
      (s.minAvailable === undefined) !== (s.maxUnavailable === undefined),
      `PDB ${pdb.metadata.name}`,
    ).to.equal(true);
    const matched = deployments.filter((d) =>
      selects(s.selector.matchLabels, spec<DeploymentSpec>(d).template.metadata.labels),
    );
    expect(matched, `PDB ${pdb.metadata.name} selects one Deployment`).to.have.length(1);
  }

  for (const monitor of ofKind(manifests, "ServiceMonitor")) {
    const s = monitor.spec as {
      selector: { matchLabels: Record<string, string> };
      endpoints: { port: string; path: string }[];
    };
    const gateway = services.find((svc) => selects(s.selector.matchLabels, svc.metadata.labels ?? {}));
    expect(gateway && componentOf(gateway), "ServiceMonitor selects the gateway Service").to.equal("gateway");
    expect(s.endpoints[0]?.path).to.equal("/v1/getMergeQueueMetrics");
  }
}
