import type { JetStreamClient } from "nats";
import { publish } from "@mainline/kit/bus/index";
import { SUBJECTS } from "@mainline/kit/streams/index";
import { TestStatusChanged } from "@mainline/proto/flaky";
import type { PublishStatusChange } from "../app/status-outbox.js";
import { toProtoStatus } from "../api/proto-mapping.js";

/** Publishes TestStatusChanged on the events stream, with the change's id as Nats-Msg-Id. */
export function statusEventPublisher(js: JetStreamClient): PublishStatusChange {
  return async (notice) => {
    const { test } = notice;
    await publish(
      js,
      SUBJECTS.testStatusEvent,
      TestStatusChanged,
      {
        eventId: notice.eventId,
        org: test.org,
        repo: test.repo,
        testId: test._id,
        name: test.name,
        variant: test.variant,
        filePath: test.file,
        classname: test.classname,
        parent: test.parent,
        oldStatus: toProtoStatus(notice.from),
        newStatus: toProtoStatus(notice.to.value),
        reason: notice.to.reason,
        timestamp: new Date(notice.to.timestamp),
        quarantined: notice.quarantined,
        htmlUrl: notice.htmlUrl,
        codeowners: notice.codeowners,
      },
      { msgId: notice.eventId },
    );
  };
}
