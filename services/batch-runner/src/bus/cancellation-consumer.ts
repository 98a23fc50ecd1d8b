import type { JetStreamManager } from "nats";
import { ensureConsumer, type DeliveryHandler } from "@mainline/kit/bus/index";
import { STREAMS, SUBJECTS } from "@mainline/kit/streams/index";
import { TestRunEventType, type TestRunLifecycleEvent } from "@mainline/proto/queue";
import { assertRunId } from "../git/ref-names.js";
import type { RunCancellationBoard } from "./run-cancellation-board.js";

/**
 * The coordinator publishes a run's cancellation as a lifecycle event (with its own state change,
 * through its outbox); every replica binds to this one durable, so each event is read once and
 * posted on the board, where the replica running the run sees it.
 */
export const CANCELLATION_CONSUMER = {
  durable: "batch-runner-test-run-cancellations",
  subject: SUBJECTS.testRunEvent,
} as const;

/** Idempotent: every replica calls it at start. */
export async function provisionCancellationConsumer(jsm: JetStreamManager, ackWaitMs: number): Promise<void> {
  await ensureConsumer(jsm, STREAMS.events.name, {
    durable: CANCELLATION_CONSUMER.durable,
    filterSubjects: [CANCELLATION_CONSUMER.subject],
    ackWaitMs,
    maxDeliver: 100,
  });
}

/** Other test-run events (started, finished) are acked and forgotten. */
export function cancellationHandler(board: RunCancellationBoard): DeliveryHandler<TestRunLifecycleEvent> {
  return async ({ data }) => {
    if (data.type !== TestRunEventType.CANCELLED) return;
    // No job can carry an id that is not one; the consumer terminates the event and logs why.
    assertRunId("testRunId", data.testRunId);
    await board.post(data.testRunId, data.reason);
  };
}
