import { expect } from "chai";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { readText, readYaml, repoRoot, runnableServices, serviceConfigVariables } from "./deploy-files.js";

// Docker cannot run on the build machines, so the Dockerfile and docker-compose.yml are checked by reading:
// they must stay in step with the workspaces, the services' config schemas and the Helm chart.

interface ComposeService {
  image?: string;
  build?: unknown;
  command?: string[];
  environment?: Record<string, string | number>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  profiles?: string[];
}

type ChartComponents = Record<string, { protocol: string; port: number }>;
const chartComponents = () =>
  readYaml<{ components: ChartComponents }>("deploy/helm/mainline/values.yaml").components;

describe("container image and docker-compose", () => {
  describe("Dockerfile", () => {
    const dockerfile = readText("Dockerfile");
    const stages = dockerfile.split(/^FROM /m).slice(1);
    const finalStage = stages.at(-1) ?? "";

    it("builds in one stage and runs from a slimmer one", () => {
      expect(stages.length).to.be.at.least(2);
      expect(stages[0]).to.match(/RUN npm ci/);
      expect(stages[0]).to.match(/RUN npx tsc -b/);
      expect(stages[0]).to.match(/npm prune --omit=dev/);
      expect(finalStage).to.match(/COPY --from=build/);
      expect(finalStage).to.not.match(/npm ci|tsc/);
    });

    it("runs as a non-root user", () => {
      const user = /^USER\s+(\S+)/m.exec(finalStage)?.[1];
      expect(user, "USER in the final stage").to.be.a("string");
      expect(user!.split(":")[0]).to.not.be.oneOf(["root", "0"]);
    });

    it("copies every workspace's package.json before npm ci", () => {
      const workspaces = (JSON.parse(readText("package.json")) as { workspaces: string[] }).workspaces;
      for (const ws of workspaces) expect(dockerfile, ws).to.include(`COPY ${ws}/package.json ${ws}/`);
    });

    it("ships the compiled runtime workspaces and selects the service by SERVICE / MAINLINE_SERVICE", () => {
      for (const ws of ["proto", "services/kit", ...runnableServices().map((s) => `services/${s}`)]) {
        expect(dockerfile, ws).to.match(new RegExp(`for ws in [^;]*\\b${ws.replace("/", "\\/")}\\b`));
      }
      expect(finalStage).to.match(/^ARG SERVICE=gateway/m);
      expect(finalStage).to.match(/MAINLINE_SERVICE=\$\{SERVICE\}/);
      expect(finalStage).to.match(/^ENTRYPOINT \[.*mainline-entrypoint"\]/m);
    });

    it("ships the mainline CLI: bundled in the build stage, on PATH in the runtime, runnable with node alone", () => {
      const bundled = /node tools\/scripts\/build-cli\.mjs (\S+)/.exec(stages[0] ?? "")?.[1];
      expect(bundled, "the build stage bundles the CLI").to.equal("/out/cli/mainline.mjs");
      const linked = /^RUN ln -s \/app\/cli\/mainline\.mjs \/usr\/local\/bin\/mainline$/m.exec(finalStage);
      expect(linked, "the runtime links it on PATH").to.not.equal(null);
      expect(finalStage.indexOf(linked![0]), "linked while still root").to.be.below(
        finalStage.search(/^USER /m),
      );
      // What that build step makes, run from an empty folder as in the image (no node_modules, no tsx).
      const out = mkdtempSync(join(tmpdir(), "mainline-image-cli-"));
      try {
        const built = spawnSync(
          process.execPath,
          [join(repoRoot, "tools/scripts/build-cli.mjs"), join(out, "cli/mainline.mjs")],
          {
            encoding: "utf8",
          },
        );
        expect(built.status, built.stderr).to.equal(0);
        const help = spawnSync(join(out, "cli/mainline.mjs"), ["admin", "--help"], {
          cwd: out,
          env: { PATH: dirname(process.execPath) },
          encoding: "utf8",
        });
        expect(help.status, help.stderr).to.equal(0);
        expect(help.stdout).to.include("token");
      } finally {
        rmSync(out, { recursive: true, force: true });
      }
    });

    it("leaves installed and built files out of the build context", () => {
      const ignored = readText(".dockerignore").split("\n");
      expect(ignored).to.include.members(["**/node_modules", "**/dist", ".git"]);
    });
  });

  describe("entry point", () => {
    const entrypoint = join(repoRoot, "deploy", "docker", "entrypoint.sh");

    it("knows exactly the services that have a main.ts", () => {
      const list = /^services="([^"]+)"/m.exec(readText("deploy/docker/entrypoint.sh"))?.[1] ?? "";
      expect(list.split(" ").sort()).to.deep.equal(runnableServices());
    });

    it("refuses an unknown service with a clear message", () => {
      const result = spawnSync("sh", [entrypoint, "no-such-service"], { encoding: "utf8" });
      expect(result.status).to.equal(64);
      expect(result.stderr).to.match(/unknown service 'no-such-service'.*gateway/);
    });
  });

  describe("docker-compose.yml", () => {
    const compose = readYaml<{ services: Record<string, ComposeService> }>("docker-compose.yml");
    const services = compose.services;
    const components = chartComponents();

    it("runs NATS with JetStream and every service of the chart, on the embedded store; MongoDB is opt-in", () => {
      expect(Object.keys(services)).to.include.members(["nats", "mongodb", ...Object.keys(components)]);
      // The bundled MongoDB starts only with --profile mongodb, and no service waits for it.
      expect(services.mongodb?.profiles).to.deep.equal(["mongodb"]);
      for (const name of runnableServices())
        expect(services[name]?.depends_on, name).to.not.have.property("mongodb");
      expect(services.nats?.command).to.include("--jetstream");
      expect(Object.keys(components).sort()).to.deep.equal(runnableServices());
    });

    for (const name of runnableServices()) {
      it(`configures ${name} as the chart does`, () => {
        const service = services[name];
        expect(service, name).to.be.an("object");
        expect(service!.image).to.equal("mainline:local");
        expect(service!.healthcheck?.test).to.include("/app/healthcheck.cjs");
        expect(service!.depends_on?.nats?.condition).to.equal("service_healthy");
        const env = service!.environment ?? {};
        expect(env.MAINLINE_SERVICE).to.equal(name);
        expect(env.NATS_URL).to.equal("nats://nats:4222");
        // Unset by default (compose passes "", which the services read as unset): the embedded store.
        expect(env.MONGODB_URI).to.equal("${MONGODB_URI:-}");
        const component = components[name]!;
        if (component.protocol === "grpc") expect(env.GRPC_PORT).to.equal(String(component.port));
        else expect(env.GATEWAY_PORT).to.equal(String(component.port));

        const known = serviceConfigVariables(name);
        for (const variable of Object.keys(env)) {
          if (variable === "MAINLINE_SERVICE") continue;
          expect(
            known.has(variable),
            `${name}: ${variable} is not read by services/${name}/src/config.ts`,
          ).to.equal(true);
        }
      });
    }

    it("points the gateway at every service's gRPC port", () => {
      const env = services.gateway?.environment ?? {};
      for (const [name, component] of Object.entries(components)) {
        if (component.protocol !== "grpc") continue;
        const variable = `${name.toUpperCase().replaceAll("-", "_")}_ADDR`;
        expect(env[variable], variable).to.equal(`${name}:${component.port}`);
      }
    });
  });

  it("uses the chart's ports for the image's EXPOSE", () => {
    const exposed = (/^EXPOSE (.+)$/m.exec(readText("Dockerfile"))?.[1] ?? "").split(/\s+/).map(Number);
    const ports = Object.values(chartComponents()).map((c) => c.port);
    expect(exposed).to.include.members(ports);
  });

  it("has a health check script that works without TypeScript", () => {
    const script = readText("deploy/docker/healthcheck.cjs");
    expect(script).to.include("@mainline/kit/grpc/index");
    const parsed = spawnSync(process.execPath, ["--check", join(repoRoot, "deploy/docker/healthcheck.cjs")]);
    expect(parsed.status).to.equal(0);
  });
});
