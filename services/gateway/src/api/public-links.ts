import type { Context } from "koa";

/**
 * Services name the pages the gateway serves by their path (e.g. a run's output at /v1/test-runs/{id}/output):
 * only the gateway knows where users reach it. Links that are already absolute (an external CI's page) pass as
 * they are. Without MAINLINE_PUBLIC_URL the request's own origin is the base.
 */
export type LinkResolver = (url: string) => string;

export function linkResolver(ctx: Context, publicUrl: string | undefined): LinkResolver {
  const base = (publicUrl ?? `${ctx.protocol}://${ctx.host}`).replace(/\/+$/, "");
  return (url) => (url.startsWith("/v1/") ? `${base}${url}` : url);
}
