import { InvalidArgumentError, NotFoundError } from "@mainline/kit/errors/index";
import type { GetSubmittedPullRequestRequest, SubmittedPullRequest } from "@mainline/proto/queue";
import type { PullRequestEntry } from "../domain/index.js";
import { queueAddress, queueKey, repoKey, type QueueAddress } from "../app/queue-key.js";
import { incarnation } from "../app/run-ids.js";
import type { QueueDocument } from "../store/queue-repository.js";
import { NOT_SUBMITTED, type ApiDeps } from "./api-deps.js";
import { prNumber } from "./command-parser.js";
import { submittedToProto } from "./proto-mapping.js";
import { withFailureDetails } from "./test-run-output.js";

const NOT_SUBMITTED_BRANCH =
  "No pull request from the provided branch has ever been submitted to the specified queue";

/**
 * One getSubmittedPullRequest lookup, by number or by branch (spec rule 3's branch rules). `readQueue` lets a
 * batch of lookups read each queue once.
 */
export async function lookupSubmitted(
  deps: Pick<ApiDeps, "records" | "runs">,
  req: GetSubmittedPullRequestRequest,
  readQueue: (address: QueueAddress) => Promise<QueueDocument>,
): Promise<SubmittedPullRequest> {
  const { records, runs } = deps;
  const address = queueAddress(req.queue);
  const doc = await readQueue(address);
  const key = queueKey(address);
  const queue = { key, incarnation: incarnation(doc._id, doc.createdAt) };
  const ended = (entry: PullRequestEntry) =>
    withFailureDetails(submittedToProto(entry, doc.planner, false, queue.incarnation), entry, queue, runs);
  if (!req.pr) throw new InvalidArgumentError("pr", "one of pr.number or pr.branch is required");
  if (req.pr.$case === "number") {
    const number = prNumber(req.pr.value);
    const active = doc.planner.prs[String(number)];
    if (active) return submittedToProto(active, doc.planner, true, queue.incarnation);
    const finished = await records.latestFinished(key, number);
    if (finished) return ended(finished.entry);
    throw new NotFoundError(NOT_SUBMITTED);
  }
  const branch = req.pr.value.trim();
  if (!branch) throw new InvalidArgumentError("pr.branch", "must not be empty");
  // Spec rule 3: an open PR from the branch that was submitted, else the most recently closed one.
  const facts = await records.factsByBranch(address.org, repoKey(address.repo), branch);
  const openNumbers = new Set(facts.filter((f) => f.facts.open).map((f) => f.number));
  const active = Object.values(doc.planner.prs).filter((e) => e.facts?.headBranch === branch);
  const finished = await records.finishedByBranch(key, branch);
  const openActive = active.find((e) => openNumbers.has(e.number)) ?? active[0];
  if (openActive) return submittedToProto(openActive, doc.planner, true, queue.incarnation);
  const openFinished = finished.find((f) => openNumbers.has(f.number));
  if (openFinished) return ended(openFinished.entry);
  const closed = finished[0];
  if (closed) return ended(closed.entry);
  throw new NotFoundError(NOT_SUBMITTED_BRANCH);
}
