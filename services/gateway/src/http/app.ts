import Koa from "koa";
import type { ReadinessCheck } from "./health-routes.js";
import { healthRoutes } from "./health-routes.js";

export function createApp(options: { readiness: ReadinessCheck[] }): Koa {
  const app = new Koa();
  const health = healthRoutes(options.readiness);
  app.use(health.routes()).use(health.allowedMethods());
  return app;
}
