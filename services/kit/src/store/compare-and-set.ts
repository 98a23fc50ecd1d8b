import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { headers, type JetStreamClient, type JetStreamManager, type StoredMsg } from "nats";
import { withAttempts } from "../bus/index.js";
import { hasJsErrCode, JsErrCode } from "../bus/jetstream-errors.js";
import { ConflictError, UnavailableError } from "../errors/index.js";
import { isRevisionMismatch } from "./kv-errors.js";

/** A bucket's stream as a write needs it: the client to publish with, and one to read the key back. */
export interface BucketStream {
  js: JetStreamClient;
  /** Its requests wait one attempt (JETSTREAM_ATTEMPTS). */
  jsm: JetStreamManager;
  /** The bucket's name (its stream is KV_<name>, its keys' subjects $KV.<name>.<key>). */
  name: string;
}

/** How often, and how far apart, the bucket is read to tell whether an earlier attempt landed. */
const LANDED_CHECKS = 10;
const LANDED_CHECK_PAUSE_MS = 200;

/**
 * Writes one entry of the bucket compare-and-set on `previousSeq` (the key's revision the caller decided on; 0:
 * no entry at all) and returns its revision.
 *
 * It is sent again while no stream leader answers (withAttempts). A repeat of an attempt that landed is refused
 * as a conflict (a replicated stream checks the compare-and-set before the message id), so every attempt carries
 * one message id, stored with the entry: a refusal after a repeat reads the key back and, when the entry there
 * carries that id, returns its revision as the write's own. Anything it cannot settle comes out as
 * UnavailableError (the write may have landed), never as a success it did not have.
 */
export async function compareAndSet(
  bucket: BucketStream,
  key: string,
  data: Uint8Array | string,
  previousSeq: number,
  operation?: "DEL",
): Promise<number> {
  const subject = `$KV.${bucket.name}.${key}`;
  const msgID = randomUUID();
  let attempts = 0;
  try {
    const ack = await withAttempts((timeout) => {
      attempts++;
      const h = headers();
      if (operation) h.set("KV-Operation", operation);
      h.set("Nats-Expected-Last-Subject-Sequence", `${previousSeq}`);
      return bucket.js.publish(subject, data, { headers: h, msgID, timeout });
    });
    // The stream answers a repeat that arrived while the first was still being replicated with revision 0.
    if (!ack.duplicate || ack.seq !== 0) return ack.seq;
    const landed = await landedAs(bucket.jsm, bucket.name, subject, msgID, previousSeq);
    if (landed === undefined) throw new ConflictError(`${subject}: another process changed it first`);
    return landed;
  } catch (error) {
    if (attempts > 1 && isRevisionMismatch(error)) {
      const landed = await landedAs(bucket.jsm, bucket.name, subject, msgID, previousSeq);
      if (landed !== undefined) return landed;
    }
    throw error;
  }
}

/**
 * The revision under which the attempt with `msgID` landed; undefined once another write holds the key instead
 * (a true conflict). Waits while the key still shows `previousSeq`: an attempt in flight has yet to land or fail.
 */
async function landedAs(
  jsm: JetStreamManager,
  bucket: string,
  subject: string,
  msgID: string,
  previousSeq: number,
): Promise<number | undefined> {
  for (let check = 0; check < LANDED_CHECKS; check++) {
    let last: StoredMsg | null;
    try {
      last = await withAttempts(() =>
        jsm.streams.getMessage(`KV_${bucket}`, { last_by_subj: subject }).catch((error: unknown) => {
          if (hasJsErrCode(error, JsErrCode.NoMessageFound)) return null;
          throw error;
        }),
      );
    } catch (error) {
      throw new UnavailableError(`${subject}: the write may have landed; reading it back failed`, 1000, {
        cause: error,
      });
    }
    if (last?.header.get("Nats-Msg-Id") === msgID) return last.seq;
    if ((last?.seq ?? 0) !== previousSeq) return undefined;
    await sleep(LANDED_CHECK_PAUSE_MS);
  }
  throw new UnavailableError(`${subject}: the write may have landed; the bucket did not say`, 1000);
}
