import Router, { type RouterContext } from "@koa/router";

export interface ReadinessCheck {
  name: string;
  check(): Promise<boolean>;
}

/**
 * /healthz: the process is alive (liveness). /readyz: every upstream service answers SERVING (readiness), so
 * Kubernetes sends no traffic to a gateway that cannot reach the services behind it. Both also under /v1.
 */
export function healthRoutes(checks: ReadinessCheck[]): Router {
  const router = new Router();
  const live = (ctx: RouterContext) => {
    ctx.body = { status: "ok" };
  };
  const ready = async (ctx: RouterContext) => {
    const results = await Promise.all(
      checks.map(async (c) => [c.name, await c.check().catch(() => false)] as const),
    );
    const failing = results.filter(([, ok]) => !ok).map(([name]) => name);
    ctx.status = failing.length === 0 ? 200 : 503;
    ctx.body = { status: failing.length === 0 ? "ready" : "not ready", failing };
  };
  router.get("/healthz", live).get("/v1/healthz", live).get("/readyz", ready).get("/v1/readyz", ready);
  return router;
}
