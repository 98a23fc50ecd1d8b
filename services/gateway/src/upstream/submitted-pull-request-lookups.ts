import DataLoader from "dataloader";
import { context, SpanKind, trace, type Context, type Link } from "@opentelemetry/api";
import { callUnary, RemoteCallError } from "@mainline/kit/grpc/index";
import { failSpan } from "@mainline/kit/telemetry/index";
import type {
  GetSubmittedPullRequestRequest,
  QueueCoordinatorClient,
  SubmittedPullRequest,
} from "@mainline/proto/queue";

interface Lookup {
  request: GetSubmittedPullRequestRequest;
  /** The trace context of the HTTP request that asked. */
  caller: Context;
}

// Looked up per call, not at import: a tracer taken before the SDK (re)registers would stay a no-op.
const tracer = () => trace.getTracer("mainline-gateway");

/**
 * getSubmittedPullRequest is what every CI job polls, so it is the gateway's hottest call, and one gRPC round
 * trip costs several times the rest of the request's work. Lookups that arrive in the same turn of the event
 * loop therefore share one GetSubmittedPullRequests call. A lone request waits only for the end of its turn;
 * under load, one call answers every poller that arrived together. Each lookup still gets its own answer or
 * error, exactly as the single call would give it.
 */
export class SubmittedPullRequestLookups {
  private readonly loader: DataLoader<Lookup, SubmittedPullRequest>;

  constructor(
    private readonly client: QueueCoordinatorClient,
    maxBatchSize = 100,
  ) {
    this.loader = new DataLoader((lookups) => this.fetch(lookups), {
      // Every poll must see the queue as it is now: coalesce, never remember.
      cache: false,
      maxBatchSize,
      // setImmediate runs after all the sockets that were readable in this turn have been read, so requests
      // that arrived together are in the batch (a microtask or nextTick would dispatch after each one).
      batchScheduleFn: (dispatch) => setImmediate(dispatch),
    });
  }

  get(request: GetSubmittedPullRequestRequest): Promise<SubmittedPullRequest> {
    return this.loader.load({ request, caller: context.active() });
  }

  private fetch(lookups: readonly Lookup[]): Promise<(SubmittedPullRequest | Error)[]> {
    // The call continues the first caller's trace and links every other caller's span: the call's span names
    // every request it answered.
    const links: Link[] = [];
    for (const lookup of lookups.slice(1)) {
      const caller = trace.getSpanContext(lookup.caller);
      if (caller) links.push({ context: caller });
    }
    const first = lookups[0]?.caller ?? context.active();
    return tracer().startActiveSpan(
      "getSubmittedPullRequest batch",
      { kind: SpanKind.INTERNAL, links, attributes: { "mainline.batch.size": lookups.length } },
      first,
      async (span) => {
        try {
          const { results } = await callUnary(this.client.getSubmittedPullRequests.bind(this.client), {
            lookups: lookups.map((l) => l.request),
          });
          return lookups.map((_, i) => {
            const result = results[i]?.result;
            if (result?.$case === "pullRequest") return result.value;
            if (result?.$case === "error")
              return new RemoteCallError(result.value.message, result.value.code);
            return new Error(
              `queue-coordinator answered ${results.length} results for ${lookups.length} lookups`,
            );
          });
        } catch (error) {
          failSpan(span, error);
          throw error;
        } finally {
          span.end();
        }
      },
    );
  }
}
