import { createHash } from "node:crypto";
import type { JetStreamClient, KV } from "nats";
import { openReplicatedKv, type Replication } from "@mainline/kit/bus/index";
import { UnavailableError } from "@mainline/kit/errors/index";
import { bucketName } from "@mainline/kit/store/index";

/** The heads bucket, named as the store would name a collection of the service's database. */
export const JOURNAL_HEADS_BUCKET = bucketName("mainline-flaky-analytics", "journal_heads");

const CAS_ATTEMPTS = 20;

/**
 * The last committed position of every repository's journal, read straight from JetStream (not
 * from a copy in this process): a replica that has applied its journal up to the head has seen
 * every upload any replica acknowledged. A head may lag the journal (a writer that died between its
 * commit and this write), never run ahead of it; readers replay whatever the journal holds anyway.
 */
export class JournalHeads {
  private constructor(
    private readonly kv: KV,
    /** Keeps two stores on one NATS (two databases) from sharing heads. */
    private readonly scope: string,
  ) {}

  static async open(
    js: JetStreamClient,
    scope: string,
    options: { bucket?: string; replication?: Replication } = {},
  ): Promise<JournalHeads> {
    const kv = await openReplicatedKv(
      js,
      options.bucket ?? JOURNAL_HEADS_BUCKET,
      { history: 1 },
      options.replication,
    );
    return new JournalHeads(kv, scope);
  }

  /** The repository's last committed position (0 when it has none). */
  async latest(org: string, repoKey: string): Promise<number> {
    try {
      const entry = await this.kv.get(this.key(org, repoKey));
      return entry && entry.operation === "PUT" ? Number(entry.string()) || 0 : 0;
    } catch (error) {
      throw unavailable(error, org, repoKey);
    }
  }

  /** Moves the head to `seq` unless it is already there or further (compare-and-set on its revision). */
  async advance(org: string, repoKey: string, seq: number): Promise<void> {
    const key = this.key(org, repoKey);
    try {
      for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
        const entry = await this.kv.get(key);
        const held = entry && entry.operation === "PUT" ? Number(entry.string()) || 0 : 0;
        if (held >= seq) return;
        try {
          if (entry) await this.kv.update(key, String(seq), entry.revision);
          else await this.kv.create(key, String(seq));
          return;
        } catch {
          // Another replica moved the head first: read it again.
        }
      }
    } catch (error) {
      throw unavailable(error, org, repoKey);
    }
    throw new UnavailableError(`journal head of ${org}/${repoKey}: too many concurrent writers`, 100);
  }

  private key(org: string, repoKey: string): string {
    return createHash("sha256").update(`${this.scope}\n${org}\n${repoKey}`).digest("base64url");
  }
}

function unavailable(error: unknown, org: string, repoKey: string): UnavailableError {
  const reason = error instanceof Error ? error.message : String(error);
  return new UnavailableError(`journal head of ${org}/${repoKey}: NATS unavailable (${reason})`, 1000, {
    cause: error,
  });
}
