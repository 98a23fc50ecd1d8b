import { useEffect, useState } from "preact/hooks";

/** Client-side routes: the gateway answers every page address with index.html, the page picks the view. */
export type Route =
  | { page: "queues" }
  | { page: "queue"; repo: string; branch: string; view?: "insights" }
  | { page: "insights" }
  | { page: "pull-request"; repo: string; branch: string; pr: number }
  | { page: "flaky-tests"; repo?: string }
  | { page: "test"; org: string; repo: string; testId: string }
  | { page: "not-found" };

export function parseRoute(location: { pathname: string; search: string }): Route {
  const query = new URLSearchParams(location.search);
  const path = location.pathname.replace(/\/+$/, "") || "/";
  const repo = query.get("repo") ?? "";
  const branch = query.get("branch") ?? "";
  if (path === "/" || path === "/queues") return { page: "queues" };
  if (path === "/queue" && repo && branch)
    return query.get("view") === "insights"
      ? { page: "queue", repo, branch, view: "insights" }
      : { page: "queue", repo, branch };
  if (path === "/insights") return { page: "insights" };
  const pr = Number(query.get("pr"));
  if (path === "/pull-request" && repo && branch && Number.isInteger(pr) && pr > 0)
    return { page: "pull-request", repo, branch, pr };
  if (path === "/flaky-tests") return repo ? { page: "flaky-tests", repo } : { page: "flaky-tests" };
  // The test record's html_url (flaky-analytics' Links.test): /flaky-tests/{org}/{host}/{owner...}/{name}/tests/{id}
  const test = /^\/flaky-tests\/([^/]+)\/(.+)\/tests\/([^/]+)$/.exec(path);
  if (test)
    return {
      page: "test",
      org: decodeURIComponent(test[1]!),
      repo: test[2]!.split("/").map(decodeURIComponent).join("/"),
      testId: decodeURIComponent(test[3]!),
    };
  return { page: "not-found" };
}

export const queueHref = (repo: string, branch: string, view?: "insights") =>
  `/queue?${new URLSearchParams({ repo, branch, ...(view ? { view } : {}) }).toString()}`;
export const pullRequestHref = (repo: string, branch: string, pr: number) =>
  `/pull-request?${new URLSearchParams({ repo, branch, pr: String(pr) }).toString()}`;

export function navigate(href: string): void {
  history.pushState(null, "", href);
  dispatchEvent(new PopStateEvent("popstate"));
}

/** The current route; same-origin link clicks navigate without a reload. */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location));
  useEffect(() => {
    const update = () => setRoute(parseRoute(location));
    const click = (event: MouseEvent) => {
      const link = (event.target as Element | null)?.closest?.("a");
      if (!link || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey) return;
      const url = new URL(link.href, location.href);
      if (url.origin !== location.origin || link.target || url.pathname.startsWith("/v1/")) return;
      event.preventDefault();
      navigate(url.pathname + url.search);
    };
    addEventListener("popstate", update);
    document.addEventListener("click", click);
    return () => {
      removeEventListener("popstate", update);
      document.removeEventListener("click", click);
    };
  }, []);
  return route;
}
