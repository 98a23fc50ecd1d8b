import { createServer, type Server } from "node:http";
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { connect, type NatsConnection } from "nats";
import { NatsServer } from "@mainline/testing";
import { createLogger } from "@mainline/kit/logging/index";
import { openStore, type Store } from "@mainline/kit/store/index";
import { AuthRepository } from "../auth/auth-repository.js";
import { allEndpoints } from "../api/all-endpoints.js";
import { createApp, requestHandler } from "../http/app.js";
import { connectUpstreams, type Upstreams } from "../upstream/upstreams.js";

/**
 * The gateway's HTTP app over a real embedded store on a real nats-server, with upstream addresses given by
 * the test (an unreachable one when a test only exercises what the gateway decides by itself).
 */
export class GatewayHarness {
  private constructor(
    readonly url: string,
    readonly auth: AuthRepository,
    private readonly server: Server,
    private readonly upstreams: Upstreams,
    private readonly store: Store,
    private readonly nc: NatsConnection,
    private readonly nats: NatsServer,
  ) {}

  static async start(
    addresses: Partial<Record<"queue" | "flaky" | "metrics" | "webhooks", string>> = {},
  ): Promise<GatewayHarness> {
    const nats = await NatsServer.start();
    const nc = await connect({ servers: nats.url });
    const store = await openStore({ database: "gateway-test", nats: nc });
    const auth = await AuthRepository.open(store);
    const unreachable = "127.0.0.1:1";
    const upstreams = connectUpstreams({
      queue: addresses.queue ?? unreachable,
      flaky: addresses.flaky ?? unreachable,
      metrics: addresses.metrics ?? unreachable,
      webhooks: addresses.webhooks ?? unreachable,
    });
    const app = createApp({
      logger: createLogger("gateway-test", "silent"),
      auth,
      endpoints: allEndpoints(upstreams, auth),
      readiness: [],
    });
    const server = createServer(requestHandler(app));
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    const { port } = server.address() as AddressInfo;
    return new GatewayHarness(`http://127.0.0.1:${port}/v1`, auth, server, upstreams, store, nc, nats);
  }

  /** A new organisation with an ordinary token. */
  async organization(slug: string): Promise<string> {
    await this.auth.createOrganization(slug, slug);
    return (await this.auth.createToken(slug, "test", false)).token;
  }

  post(path: string, body: unknown, token?: string, headers: Record<string, string> = {}): Promise<Response> {
    return fetch(`${this.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(token ? { "x-api-token": token } : {}), ...headers },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
  }

  async stop(): Promise<void> {
    this.server.close();
    this.upstreams.close();
    await this.store.close();
    await this.nc.close();
    await this.nats.stop();
  }
}
