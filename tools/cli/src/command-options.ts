import { InvalidArgumentError, type Command } from "commander";

/** Adds the options that name a queue; commands read them through CliContext.queueKey. */
export function withQueueOptions(command: Command): Command {
  return command
    .option("--repo <host/owner/name>", "the repository (default: $MAINLINE_REPO)")
    .option("--target <branch>", "the queue's target branch (default: $MAINLINE_TARGET_BRANCH or main)");
}

export function withRepoOption(command: Command): Command {
  return command.option("--repo <host/owner/name>", "the repository (default: $MAINLINE_REPO)");
}

/** commander option parser for whole numbers; the error names the rule, commander names the option. */
export function wholeNumber(min: number): (value: string) => number {
  return (value) => {
    if (!/^\d+$/.test(value.trim()) || Number(value) < min) {
      throw new InvalidArgumentError(`must be a whole number >= ${min}`);
    }
    return Number(value);
  };
}

/** commander option parser for whole numbers in an inclusive range. */
export function wholeNumberIn([min, max]: readonly [number, number]): (value: string) => number {
  return (value) => {
    if (!/^\d+$/.test(value.trim()) || Number(value) < min || Number(value) > max) {
      throw new InvalidArgumentError(`must be a whole number from ${min} to ${max}`);
    }
    return Number(value);
  };
}

/** A test-aware queue setting (issue 26): on, off, or follow (the repository's quarantining decides). */
export function onOffFollow(value: string): boolean | null {
  const word = value.trim().toLowerCase();
  if (word === "on") return true;
  if (word === "off") return false;
  if (word === "follow") return null;
  throw new InvalidArgumentError("must be on, off or follow");
}

/** For repeatable options: `--junit a --junit b` gives ["a", "b"]. */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}
