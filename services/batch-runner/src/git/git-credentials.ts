import { access } from "node:fs/promises";
import { join } from "node:path";
import { FailedPreconditionError, InvalidArgumentError } from "@mainline/kit/errors/index";

/**
 * A repository connection names its credentials by secret name only (the API never carries a secret). The
 * batch-runner finds the secret as a directory of files, `<credentialsDir>/<name>/`, which is how Kubernetes
 * mounts a Secret: the keys of a `kubernetes.io/basic-auth` Secret (`username`, `password`), a bare `token`
 * (HTTPS with the user `x-access-token`, GitHub's convention for app and personal tokens), or the key of a
 * `kubernetes.io/ssh-auth` Secret (`ssh-privatekey`, with an optional `known_hosts`).
 *
 * Files are read by git's helpers when git needs them, never copied into the environment or the command
 * line, so a secret never shows in `ps`, in logs, or in the environment of the test command.
 */
export class GitCredentials {
  constructor(
    private readonly credentialsDir: string | undefined,
    /** Installation tokens of the GitHub App, when the batch-runner has one. */
    private readonly githubTokens?: GitHubTokenSource,
  ) {}

  /**
   * Environment that makes git authenticate with the named secret, or with a GitHub App installation's token;
   * empty for a remote without either.
   */
  async environment(secretName: string, githubInstallationId?: number): Promise<Record<string, string>> {
    // A secret the connection names explicitly wins over the installation (e.g. a deploy key over SSH).
    if (githubInstallationId !== undefined && secretName === "")
      return this.installationEnvironment(githubInstallationId);
    if (secretName === "") return {};
    assertSecretName(secretName);
    if (this.credentialsDir === undefined || this.credentialsDir === "") {
      throw new FailedPreconditionError(
        `the repository's credentials "${secretName}" cannot be used: BATCH_RUNNER_CREDENTIALS_DIR is not set`,
      );
    }
    const dir = join(this.credentialsDir, secretName);
    const file = (key: string) => join(dir, key);
    const present = async (key: string) =>
      access(file(key)).then(
        () => true,
        () => false,
      );

    if (await present("ssh-privatekey")) {
      const knownHosts = (await present("known_hosts"))
        ? `-o UserKnownHostsFile=${shellQuote(file("known_hosts"))} -o StrictHostKeyChecking=yes`
        : "-o StrictHostKeyChecking=accept-new";
      return {
        GIT_SSH_COMMAND: `ssh -i ${shellQuote(file("ssh-privatekey"))} -o IdentitiesOnly=yes -o BatchMode=yes ${knownHosts}`,
      };
    }
    const password = (await present("password"))
      ? "password"
      : (await present("token"))
        ? "token"
        : undefined;
    if (password === undefined) {
      throw new FailedPreconditionError(
        `the repository's credentials "${secretName}" are not mounted: expected ${dir}/ to hold ` +
          "username and password, token, or ssh-privatekey",
      );
    }
    const username = (await present("username"))
      ? `$(cat ${shellQuote(file("username"))})`
      : "x-access-token";
    // A credential helper given as a shell snippet: git runs it for `get` and reads key=value lines.
    const helper =
      `!f() { test "$1" = get || return 0; ` +
      `printf 'username=%s\\npassword=%s\\n' "${username}" "$(cat ${shellQuote(file(password))})"; }; f`;
    return helperEnvironment(helper);
  }

  /**
   * GitHub's convention for App tokens: HTTPS with the user `x-access-token`. The token travels in git's own
   * environment (read by the helper when git asks), not on a command line (`ps`) nor in a file a test command
   * could read later; the command runner builds test commands' environments from an allow-list.
   */
  private async installationEnvironment(installationId: number): Promise<Record<string, string>> {
    if (!this.githubTokens)
      throw new FailedPreconditionError(
        `the repository is reached through GitHub App installation ${installationId}, but the batch-runner ` +
          "has no GitHub App (set GITHUB_APP_ID and GITHUB_APP_PRIVATE_KEY)",
      );
    const { token } = await this.githubTokens.installationToken(installationId);
    const helper =
      `!f() { test "$1" = get || return 0; ` +
      `printf 'username=x-access-token\\npassword=%s\\n' "$${GITHUB_TOKEN_VARIABLE}"; }; f`;
    return { ...helperEnvironment(helper), [GITHUB_TOKEN_VARIABLE]: token };
  }
}

/** A credential helper given as a shell snippet: git runs it for `get` and reads key=value lines. */
function helperEnvironment(helper: string): Record<string, string> {
  return {
    GIT_CONFIG_COUNT: "2",
    // An empty helper first resets any helper list git may have inherited.
    GIT_CONFIG_KEY_0: "credential.helper",
    GIT_CONFIG_VALUE_0: "",
    GIT_CONFIG_KEY_1: "credential.helper",
    GIT_CONFIG_VALUE_1: helper,
  };
}

// Kubernetes Secret names are DNS-1123 subdomains; anything else could also walk out of the directory.
const SECRET_NAME = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;

export function assertSecretName(name: string): void {
  if (!SECRET_NAME.test(name) || name.includes("..")) {
    throw new InvalidArgumentError(
      "credentialsSecretName",
      "must be a Kubernetes Secret name: lowercase letters, digits, '-' and '.', starting and ending alphanumeric",
    );
  }
}

/** Where installation tokens come from (the kit's GitHubAppClient): fresh enough for one git operation. */
export interface GitHubTokenSource {
  installationToken(installationId: number): Promise<{ token: string }>;
}

/** The variable the credential helper reads; it is set for git alone, never for a test command. */
export const GITHUB_TOKEN_VARIABLE = "MAINLINE_GIT_HTTP_TOKEN";

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}
