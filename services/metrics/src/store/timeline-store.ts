import type { Collection, Store } from "@mainline/kit/store/index";
import { timelineKeyOf } from "../domain/coordinator-snapshot.js";
import type { PullRequestTimeline } from "../domain/pull-request-timeline.js";

type TimelineDocument = PullRequestTimeline & { _id: string };

/** The timelines of PRs still in a queue, so that a PR is measured when it leaves after a restart. */
export class TimelineStore {
  private constructor(private readonly timelines: Collection<TimelineDocument>) {}

  static open(store: Store): TimelineStore {
    return new TimelineStore(store.collection<TimelineDocument>("pull_request_timelines"));
  }

  async all(): Promise<PullRequestTimeline[]> {
    return (await this.timelines.find({})).map(({ _id, ...timeline }) => timeline);
  }

  async put(timeline: PullRequestTimeline): Promise<void> {
    const _id = timelineKeyOf(timeline);
    await this.timelines.replaceOne({ _id }, { _id, ...timeline }, { upsert: true });
  }

  async drop(key: string): Promise<void> {
    await this.timelines.deleteOne({ _id: key });
  }
}
