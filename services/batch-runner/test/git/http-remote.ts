import { spawn } from "node:child_process";
import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * Serves the bare repositories under `projectRoot` over git's smart HTTP protocol with the real
 * `git http-backend` (as a CGI program, the way Apache or nginx run it), behind HTTP basic auth:
 * a git server that refuses anyone without the right username and password.
 */
export class HttpGitServer {
  /** The username of every request that carried valid credentials, in order. */
  readonly authenticatedAs: string[] = [];
  refused = 0;

  private constructor(private readonly server: Server) {}

  get baseUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  static async start(
    projectRoot: string,
    accounts: Readonly<Record<string, string>>,
  ): Promise<HttpGitServer> {
    const server = createServer();
    const self = new HttpGitServer(server);
    server.on("request", (req: IncomingMessage, res: ServerResponse) => {
      void self.handle(req, res, projectRoot, accounts);
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    return self;
  }

  url(repository: string): string {
    return `${this.baseUrl}/${repository}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    this.server.close();
    await once(this.server, "close");
  }

  private async handle(
    req: IncomingMessage,
    res: ServerResponse,
    projectRoot: string,
    accounts: Readonly<Record<string, string>>,
  ): Promise<void> {
    const user = authenticatedUser(req.headers.authorization, accounts);
    if (user === undefined) {
      this.refused++;
      req.resume();
      res.writeHead(401, { "www-authenticate": 'Basic realm="git"' }).end();
      return;
    }
    this.authenticatedAs.push(user);
    const url = new URL(req.url ?? "/", this.baseUrl);
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      GIT_PROJECT_ROOT: projectRoot,
      GIT_HTTP_EXPORT_ALL: "1",
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_GLOBAL: "/dev/null",
      PATH_INFO: decodeURIComponent(url.pathname),
      QUERY_STRING: url.search.slice(1),
      REQUEST_METHOD: req.method ?? "GET",
      CONTENT_TYPE: req.headers["content-type"] ?? "",
      // http-backend allows pushes only from an authenticated user.
      REMOTE_USER: user,
      REMOTE_ADDR: "127.0.0.1",
      ...(req.headers["content-encoding"] && { HTTP_CONTENT_ENCODING: req.headers["content-encoding"] }),
      ...(typeof req.headers["git-protocol"] === "string" && { GIT_PROTOCOL: req.headers["git-protocol"] }),
    };
    const cgi = spawn("git", ["http-backend"], { env, stdio: ["pipe", "pipe", "inherit"] });
    req.pipe(cgi.stdin);
    const chunks: Buffer[] = [];
    cgi.stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
    await once(cgi, "close");
    const output = Buffer.concat(chunks);
    const split = output.indexOf("\r\n\r\n");
    const head = output.subarray(0, split).toString("latin1");
    let status = 200;
    const headers: Record<string, string> = {};
    for (const line of head.split("\r\n")) {
      const colon = line.indexOf(":");
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      if (name === "status") status = Number.parseInt(value, 10);
      else if (name !== "") headers[name] = value;
    }
    res.writeHead(status, headers).end(output.subarray(split + 4));
  }
}

function authenticatedUser(
  header: string | undefined,
  accounts: Readonly<Record<string, string>>,
): string | undefined {
  if (!header?.startsWith("Basic ")) return undefined;
  const decoded = Buffer.from(header.slice("Basic ".length), "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  const user = decoded.slice(0, colon);
  return colon > 0 && accounts[user] === decoded.slice(colon + 1) ? user : undefined;
}
