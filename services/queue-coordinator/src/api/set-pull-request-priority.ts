import { InvalidArgumentError } from "@mainline/kit/errors/index";
import type { SetPullRequestPriorityRequest, SetPullRequestPriorityResponse } from "@mainline/proto/queue";
import type { QueueEngine } from "../app/queue-engine.js";
import { queueAddress } from "../app/queue-key.js";

/** Long enough for "token:<id>" or a code-host login; the timeline shows it as given. */
const MAX_REQUESTED_BY = 200;

/** SetPullRequestPriority: a command through the engine (the coordinator is the PR's one writer). */
export async function setPullRequestPriority(
  deps: { engine: QueueEngine },
  req: SetPullRequestPriorityRequest,
): Promise<SetPullRequestPriorityResponse> {
  if (!Number.isInteger(req.prNumber) || req.prNumber < 1)
    throw new InvalidArgumentError("pr.number", "must be a positive integer");
  if (req.priorityValue > 255) throw new InvalidArgumentError("priority", "must be an integer 0..255");
  const by = req.requestedBy?.trim() ?? "";
  if (by.length > MAX_REQUESTED_BY)
    throw new InvalidArgumentError("requestedBy", `must be at most ${MAX_REQUESTED_BY} characters`);
  const doc = await deps.engine.apply(queueAddress(req.queue), {
    type: "PR_PRIORITY_CHANGED",
    pr: req.prNumber,
    priority: req.priorityValue,
    ...(by ? { by } : {}),
  });
  const priority = doc.planner.prs[String(req.prNumber)]?.priority;
  return { priorityValue: priority?.value ?? req.priorityValue, priorityName: priority?.name ?? "" };
}
