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
  constructor(private readonly credentialsDir: string | undefined) {}

  /** Environment that makes git authenticate with the named secret; empty for a remote without one. */
  async environment(secretName: string): Promise<Record<string, string>> {
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
    return {
      GIT_CONFIG_COUNT: "2",
      // An empty helper first resets any helper list git may have inherited.
      GIT_CONFIG_KEY_0: "credential.helper",
      GIT_CONFIG_VALUE_0: "",
      GIT_CONFIG_KEY_1: "credential.helper",
      GIT_CONFIG_VALUE_1: helper,
    };
  }
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

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}
