import type { Store } from "@mainline/kit/store/index";
import type { PullRequestTimeline } from "../domain/pull-request-timeline.js";
import { SequencedRecords } from "./sequenced-records.js";

/** The timelines of PRs still in a queue, so that a PR is measured when it leaves, whichever replica sees it. */
export class TimelineStore extends SequencedRecords<PullRequestTimeline> {
  static open(store: Store): TimelineStore {
    return new TimelineStore(store, "pull_request_timelines");
  }
}
