import type { JetStreamClient, JetStreamManager, KV, KvOptions, ObjectStore, ObjectStoreOptions } from "nats";

/**
 * How many copies JetStream keeps of every stream, key-value bucket and object store a service creates
 * (NATS_REPLICAS: 1 on one node, 3 on a three-node cluster, so the loss of a node loses nothing), and where the
 * service says that it raised an asset found with fewer.
 */
export interface Replication {
  readonly replicas: number;
  readonly logger: { info(fields: object, message: string): void };
}

/**
 * An asset keeps the replicas it was created with: one made on a single node (or before NATS_REPLICAS was set)
 * is raised here to the configured count, and JetStream copies it to the new peers. Never lowered: an operator
 * may have chosen more. A key-value bucket is the stream `KV_<bucket>`, an object store `OBJ_<name>`.
 */
export async function raiseReplicas(
  jsm: JetStreamManager,
  stream: string,
  replication: Replication,
): Promise<void> {
  const { config } = await jsm.streams.info(stream);
  const from = config.num_replicas || 1;
  if (from >= replication.replicas) return;
  await jsm.streams.update(stream, { num_replicas: replication.replicas });
  replication.logger.info(
    { asset: stream, from, to: replication.replicas },
    `raised replicas of ${stream} from ${from} to ${replication.replicas}`,
  );
}

/** Opens (creating when missing) a key-value bucket with the configured replicas, raising an older one's. */
export async function openReplicatedKv(
  js: JetStreamClient,
  bucket: string,
  options: Partial<KvOptions>,
  replication: Replication | undefined,
): Promise<KV> {
  const kv = await js.views.kv(bucket, { ...options, replicas: replication?.replicas ?? 1 });
  if (replication) await raiseReplicas(await js.jetstreamManager(), `KV_${bucket}`, replication);
  return kv;
}

/** Opens (creating when missing) an object store with the configured replicas, raising an older one's. */
export async function openReplicatedObjectStore(
  js: JetStreamClient,
  name: string,
  options: Partial<ObjectStoreOptions>,
  replication: Replication | undefined,
): Promise<ObjectStore> {
  const store = await js.views.os(name, { ...options, replicas: replication?.replicas ?? 1 });
  if (replication) await raiseReplicas(await js.jetstreamManager(), `OBJ_${name}`, replication);
  return store;
}
