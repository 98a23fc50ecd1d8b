import type { JetStreamClient, JetStreamManager } from "nats";
import { consume, ensureConsumer, type ConsumerHandle } from "@mainline/kit/bus/index";
import type { Logger } from "@mainline/kit/logging/index";
import { STREAMS, SUBJECTS } from "@mainline/kit/streams/index";
import { TestStatus, TestStatusChanged } from "@mainline/proto/flaky";
import type { QueueEngine } from "../app/queue-engine.js";
import type { QueueRepository } from "../store/queue-repository.js";

const DURABLE = "queue-coordinator-target-tests";

/**
 * A queue held for a test broken on its target resumes by itself when the target passes that test again: the
 * flaky-test service judges runs on the target branch, and a broken test that passed there stops being broken
 * (test_case.status_changed). Each queue of the repository held for that test hears TARGET_TEST_PASSED; the
 * planner ignores it anywhere else, so a redelivered event changes nothing twice.
 */
export async function startTargetTestConsumer(deps: {
  js: JetStreamClient;
  jsm: JetStreamManager;
  engine: QueueEngine;
  queues: QueueRepository;
  logger: Logger;
}): Promise<ConsumerHandle> {
  await ensureConsumer(deps.jsm, STREAMS.events.name, {
    durable: DURABLE,
    filterSubjects: [SUBJECTS.testStatusEvent],
    ackWaitMs: 30_000,
    maxDeliver: 20,
    backoffMs: [1_000, 5_000, 30_000],
  });
  return consume({
    js: deps.js,
    stream: STREAMS.events.name,
    durable: DURABLE,
    codec: TestStatusChanged,
    logger: deps.logger,
    async handler({ data }) {
      if (data.oldStatus !== TestStatus.BROKEN || data.newStatus === TestStatus.BROKEN) return;
      if (data.repo === undefined) return;
      for (const doc of await deps.queues.list(data.org, data.repo)) {
        if (doc.planner.targetBroken?.test.id !== data.testId) continue;
        await deps.engine.apply(
          { org: doc.org, repo: doc.repo, targetBranch: doc.targetBranch },
          { type: "TARGET_TEST_PASSED", testId: data.testId },
        );
      }
    },
  });
}
