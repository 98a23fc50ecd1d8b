import { formatRepository, parseRepository, type RepositoryRef } from "@mainline/contract";
/** The page's calls: the /v1 API with the session cookie, and the CSRF token every non-GET call echoes. */

export interface SessionInfo {
  org: string;
  admin: boolean;
  csrfToken: string;
  expiresAt: string;
}

/** A refused call; the message is the gateway's own sentence (it names the field or object at fault). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

let csrfToken = "";
const signedOutListeners = new Set<() => void>();

export function onSignedOut(listener: () => void): () => void {
  signedOutListeners.add(listener);
  return () => signedOutListeners.delete(listener);
}

async function send<T>(method: string, url: string, body?: unknown): Promise<T> {
  const response = await fetch(url, {
    method,
    credentials: "same-origin",
    headers: {
      ...(body !== undefined ? { "content-type": "application/json" } : {}),
      ...(method !== "GET" && csrfToken ? { "x-csrf-token": csrfToken } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  if (!response.ok) {
    if (response.status === 401 && !url.startsWith("/ui/session")) for (const l of signedOutListeners) l();
    throw new ApiError(response.status, text || response.statusText);
  }
  const type = response.headers.get("content-type") ?? "";
  return (type.includes("json") && text ? JSON.parse(text) : text) as T;
}

/** POST to /v1 (the API's read and write operations are POSTs with JSON bodies). */
export const api = <T>(path: string, body: unknown = {}): Promise<T> => send<T>("POST", `/v1${path}`, body);

export async function currentSession(): Promise<SessionInfo | undefined> {
  try {
    const info = await send<SessionInfo>("GET", "/ui/session");
    csrfToken = info.csrfToken;
    return info;
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return undefined;
    throw error;
  }
}

export async function signIn(token: string): Promise<SessionInfo> {
  const info = await send<SessionInfo>("POST", "/ui/session", { token });
  csrfToken = info.csrfToken;
  return info;
}

export async function signOut(): Promise<void> {
  await send("DELETE", "/ui/session");
  csrfToken = "";
}

export type RepoRef = RepositoryRef;

/** A repository in the page's addresses: the contract's one spelling and one parse. */
export const repoKey = formatRepository;
export const parseRepoKey = parseRepository;

/** GET a plain-text page of the API (a run's output) with the session cookie. */
export const getText = (path: string): Promise<string> => send<string>("GET", path);
