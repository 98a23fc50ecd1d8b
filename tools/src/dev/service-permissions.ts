import { CANCELLED_RUNS_BUCKET, TEST_RUN_RESULTS_BUCKET } from "@mainline/batch-runner";
import { bucketName } from "@mainline/kit/store/index";
import { STREAMS, SUBJECTS, TEST_RUN_OUTPUTS_BUCKET } from "@mainline/kit/streams/index";
import { DELIVERY_STREAM } from "@mainline/webhooks";

/**
 * What each Mainline service may do on NATS: the one list that `make dev` gives its nats-server and that
 * docker-compose's nats.conf and the Helm chart's NATS config are generated from (tools/src/deploy/
 * nats-permissions-config.ts; tests keep them equal). A service may publish only the subjects it produces,
 * write only its own key-value buckets, and use the JetStream API only for the streams it provisions or
 * reads, so a leaked password (or a service doing what it should not) cannot publish another service's
 * results or read another service's store.
 */
export interface ServicePermissions {
  readonly publish: { readonly allow: readonly string[] };
  readonly subscribe: { readonly allow: readonly string[] };
}

/** The embedded store's database of a service: service-runtime's default, `mainline-<name>`. */
const storeBuckets = (service: string, collections: readonly string[]) =>
  collections.map((collection) => bucketName(`mainline-${service}`, collection));

/** Every service's request/reply: JetStream API answers and pull deliveries come back on an inbox. */
const INBOX = "_INBOX.>";
/** Account limits, asked by the JetStream client on its first use. */
const ACCOUNT_INFO = "$JS.API.INFO";
/**
 * The names of the streams (never their contents): an ordered consumer, as an object-store read makes, finds
 * its stream by subject this way.
 */
const STREAM_NAMES = "$JS.API.STREAM.NAMES";

/** Looks a stream up and creates or updates it: whoever starts first provisions it (never deletes it). */
const provisions = (stream: string) => [
  `$JS.API.STREAM.INFO.${stream}`,
  `$JS.API.STREAM.CREATE.${stream}`,
  `$JS.API.STREAM.UPDATE.${stream}`,
];

/**
 * Reads a stream: its consumers (durable, and the ordered ones of key-value watches and object reads),
 * their pulls, acks and flow control, and single messages (a key-value get).
 */
const reads = (stream: string) => [
  ...provisions(stream),
  `$JS.API.STREAM.MSG.GET.${stream}`,
  `$JS.API.DIRECT.GET.${stream}`,
  `$JS.API.DIRECT.GET.${stream}.>`,
  `$JS.API.CONSUMER.*.${stream}`,
  `$JS.API.CONSUMER.*.${stream}.>`,
  `$JS.API.CONSUMER.DURABLE.CREATE.${stream}.>`,
  `$JS.API.CONSUMER.MSG.NEXT.${stream}.>`,
  `$JS.ACK.${stream}.>`,
  `$JS.FC.${stream}.>`,
];

/** A key-value bucket the service owns: it reads and writes its keys (a write is a publish on `$KV`). */
const ownsBucket = (bucket: string) => [...reads(`KV_${bucket}`), `$KV.${bucket}.>`];

const MAINLINE_STREAMS = Object.values(STREAMS).map((s) => s.name);

/** Per service, by the name it logs in with (NATS_USER). */
export const SERVICE_PERMISSIONS: Readonly<Record<string, ServicePermissions>> = {
  /**
   * The gateway publishes nothing: it calls the services over gRPC. It hears lifecycle events as they are
   * published (a plain subscription, for the web page's live updates) and keeps API tokens, organisations and
   * ended sessions in its store.
   */
  gateway: {
    publish: {
      allow: [
        ACCOUNT_INFO,
        STREAM_NAMES,
        INBOX,
        ...storeBuckets("gateway", [
          "api_tokens",
          "organizations",
          "ended_web_sessions",
          "github_deliveries",
        ]).flatMap(ownsBucket),
      ],
    },
    subscribe: { allow: [INBOX, "mainline.events.>"] },
  },
  /**
   * The coordinator publishes jobs, lifecycle events and the JUnit of external CI reports (all through its
   * outbox); it consumes results, holds its timekeeper lease and reads run outputs.
   */
  "queue-coordinator": {
    publish: {
      allow: [
        ACCOUNT_INFO,
        STREAM_NAMES,
        INBOX,
        SUBJECTS.testRunJob,
        SUBJECTS.mergeJob,
        SUBJECTS.testBranchCleanupJob,
        SUBJECTS.testResults,
        SUBJECTS.pullRequestEvent,
        SUBJECTS.pullRequestPriorityEvent,
        SUBJECTS.queueEvent,
        SUBJECTS.batchEvent,
        SUBJECTS.testRunEvent,
        SUBJECTS.queueEvent,
        ...MAINLINE_STREAMS.flatMap(provisions),
        ...reads(STREAMS.results.name),
        // Test status changes: a broken target's test passing again ends the queue's hold (issue 26).
        ...reads(STREAMS.events.name),
        ...reads(`OBJ_${TEST_RUN_OUTPUTS_BUCKET}`),
        ...[
          ...storeBuckets("queue-coordinator", [
            "queues",
            "test_runs",
            "finished_entries",
            "pull_request_facts",
            "repository_connections",
            "github_installations",
            "branch_pushes",
            "request_keys",
            // Queue insights' finished hours, a document per queue and day (issue 29).
            "queue_insight_days",
          ]),
          "mainline_coordinator_leases",
        ].flatMap(ownsBucket),
      ],
    },
    subscribe: { allow: [INBOX] },
  },
  /**
   * The batch-runner consumes jobs and test-run events (cancellations), publishes results and JUnit uploads,
   * writes run outputs to the object store and keeps its own boards. It is the service that runs untrusted
   * commands, so it is the one that matters most: it cannot read any other service's store.
   */
  "batch-runner": {
    publish: {
      allow: [
        ACCOUNT_INFO,
        STREAM_NAMES,
        INBOX,
        SUBJECTS.testRunResult,
        SUBJECTS.testRunPushed,
        SUBJECTS.mergeResult,
        SUBJECTS.testResults,
        ...MAINLINE_STREAMS.flatMap(provisions),
        ...reads(STREAMS.jobs.name),
        ...reads(STREAMS.events.name),
        ...reads(`OBJ_${TEST_RUN_OUTPUTS_BUCKET}`),
        `$O.${TEST_RUN_OUTPUTS_BUCKET}.>`,
        ...[CANCELLED_RUNS_BUCKET, TEST_RUN_RESULTS_BUCKET].flatMap(ownsBucket),
      ],
    },
    subscribe: { allow: [INBOX] },
  },
  /** Flaky analytics consumes JUnit uploads and publishes test status changes. */
  "flaky-analytics": {
    publish: {
      allow: [
        ACCOUNT_INFO,
        STREAM_NAMES,
        INBOX,
        SUBJECTS.testStatusEvent,
        ...MAINLINE_STREAMS.flatMap(provisions),
        ...reads(STREAMS.jobs.name),
        ...storeBuckets("flaky-analytics", [
          "repositories",
          "snapshots",
          "snapshot_parts",
          "test_annotations",
          "journal",
          // Not a store collection: the journal heads every replica reads (JOURNAL_HEADS_BUCKET).
          "journal_heads",
          "uploads",
          "upload_parts",
        ]).flatMap(ownsBucket),
      ],
    },
    subscribe: { allow: [INBOX] },
  },
  /** Metrics only reads lifecycle events. */
  metrics: {
    publish: {
      allow: [
        ACCOUNT_INFO,
        STREAM_NAMES,
        INBOX,
        ...MAINLINE_STREAMS.flatMap(provisions),
        ...reads(STREAMS.events.name),
        ...storeBuckets("metrics", [
          "observations",
          "test_statuses",
          "active_test_runs",
          "pull_request_timelines",
          "known_queues",
        ]).flatMap(ownsBucket),
      ],
    },
    subscribe: { allow: [INBOX] },
  },
  /** Webhooks reads lifecycle events and keeps its own delivery stream (which it may purge per subscription). */
  webhooks: {
    publish: {
      allow: [
        ACCOUNT_INFO,
        STREAM_NAMES,
        INBOX,
        ...DELIVERY_STREAM.subjects,
        ...MAINLINE_STREAMS.flatMap(provisions),
        ...reads(STREAMS.events.name),
        ...reads(DELIVERY_STREAM.name),
        `$JS.API.STREAM.PURGE.${DELIVERY_STREAM.name}`,
        ...storeBuckets("webhooks", ["subscriptions", "deliveries", "github_calls"]).flatMap(ownsBucket),
      ],
    },
    subscribe: { allow: [INBOX] },
  },
};

/** A service's permissions; throws for a name that is not a Mainline service. */
export function servicePermissions(service: string): ServicePermissions {
  const permissions = SERVICE_PERMISSIONS[service];
  if (!permissions) throw new Error(`no NATS permissions are defined for ${service}`);
  return permissions;
}
