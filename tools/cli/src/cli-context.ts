import type { Command } from "commander";
import { MainlineApi } from "./api/mainline-api.js";
import type { QueueKey } from "./api/api-types.js";
import { CliError, EXIT } from "./cli-error.js";
import type { CliIo } from "./cli-io.js";
import { apiUrlFrom, tokenFrom } from "./connection-settings.js";
import { parseRepositoryRef } from "./domain/repository-ref.js";
import { LiveDisplay } from "./output/live-display.js";
import { Output } from "./output/output.js";

/** What every command needs, made on demand so `--help` and usage errors never ask for a token. */
export class CliContext {
  /** What the run ends with when no error is thrown; a command that waited for a failure sets it. */
  exitCode: number = EXIT.ok;

  constructor(readonly io: CliIo) {}

  output(command: Command): Output {
    return new Output(this.io, Boolean(command.optsWithGlobals<{ json?: boolean }>().json));
  }

  /** The progress display for a wait; none with --json, whose stdout is for the result alone. */
  display(command: Command): LiveDisplay | undefined {
    return this.output(command).json ? undefined : new LiveDisplay(this.io.stderr);
  }

  api(): MainlineApi {
    return new MainlineApi(apiUrlFrom(this.io.env), tokenFrom(this.io.env));
  }

  /** The queue a command is about: --repo (or MAINLINE_REPO) and --target (or MAINLINE_TARGET_BRANCH, or main). */
  queueKey(command: Command): QueueKey {
    const opts = command.optsWithGlobals<{ repo?: string; target?: string }>();
    return {
      repo: this.repository(command),
      targetBranch: opts.target ?? this.io.env.MAINLINE_TARGET_BRANCH ?? "main",
    };
  }

  repository(command: Command): QueueKey["repo"] {
    const { repo } = command.optsWithGlobals<{ repo?: string }>();
    const text = repo ?? this.io.env.MAINLINE_REPO;
    if (!text) {
      throw new CliError(
        "which repository? give --repo host/owner/name (e.g. github.com/acme/app) or set MAINLINE_REPO",
      );
    }
    return parseRepositoryRef(text, repo ? "--repo" : "MAINLINE_REPO");
  }
}
