import { randomUUID } from "node:crypto";
import { link, mkdir, open, rename, rm, unlink, utimes } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";

/** A claimed slot not touched for this long belongs to a process that is gone (another host, or a frozen one). */
const STALE_AFTER_MS = 2 * 60_000;
const HEARTBEAT_MS = 30_000;
/** Enough for every replica one host (or one shared volume) could sensibly run. */
const MAX_SLOTS = 64;

/** Who holds a slot: written into its owner file when claimed. */
interface Owner {
  readonly host: string;
  readonly pid: number;
  readonly claim: string;
}

/** Claims this process holds, told apart from a predecessor's with the same pid. */
const heldHere = new Set<string>();

/** An owner file as found: its owner (none if half-written by a process that died at once) and last heartbeat. */
interface Held {
  readonly owner?: Owner;
  readonly touchedMs: number;
}

/** The folder this process owns inside a shared work dir, until `release`. */
export interface WorkDirClaim {
  readonly dir: string;
  release(): Promise<void>;
}

/**
 * Claims a folder of its own (`replica-<n>`) inside `base` for this process: its mirrors and worktrees go there,
 * and the worktrees a dead predecessor left in it are removed. Several processes may be given the same `base`
 * (two `make dev`, two replicas on one host, the default temp folder): each takes a different slot, so none
 * deletes another's worktrees. A slot whose owner is gone (same host and its pid no longer runs, or no
 * heartbeat for STALE_AFTER_MS) is taken over, mirrors and all, so restarts reuse the fetched history.
 */
export async function claimWorkDir(base: string): Promise<WorkDirClaim> {
  await mkdir(base, { recursive: true });
  const me: Owner = { host: hostname(), pid: process.pid, claim: randomUUID() };
  for (let slot = 0; slot < MAX_SLOTS; slot++) {
    const ownerFile = join(base, `replica-${slot}.owner`);
    if (!(await takeSlot(ownerFile, me))) continue;
    heldHere.add(me.claim);
    const dir = join(base, `replica-${slot}`);
    // Whoever held the slot before is gone: its worktrees are only disk, the mirror prunes their records.
    await rm(join(dir, "worktrees"), { recursive: true, force: true });
    await mkdir(dir, { recursive: true });
    const heartbeat = setInterval(() => {
      const now = new Date();
      utimes(ownerFile, now, now).catch(() => undefined);
    }, HEARTBEAT_MS);
    heartbeat.unref();
    return {
      dir,
      async release() {
        clearInterval(heartbeat);
        heldHere.delete(me.claim);
        if ((await readOwner(ownerFile))?.owner?.claim === me.claim)
          await unlink(ownerFile).catch(() => undefined);
      },
    };
  }
  throw new Error(
    `every one of the ${MAX_SLOTS} work folders under ${base} is held by a running batch-runner`,
  );
}

/** Takes the slot if free or abandoned; false if a live process holds it. */
async function takeSlot(ownerFile: string, me: Owner): Promise<boolean> {
  for (;;) {
    if (await createOwnerFile(ownerFile, me)) return true;
    const held = await readOwner(ownerFile);
    if (held === undefined) continue; // released (or unreadable and just replaced) meanwhile: try again
    if (!abandoned(held)) return false;
    // Moved aside rather than deleted, so a racing process that already took the slot over is not robbed:
    // if what was moved is not the abandoned claim we judged, it goes back.
    const aside = `${ownerFile}.${me.claim}`;
    try {
      await rename(ownerFile, aside);
    } catch {
      continue;
    }
    const moved = await readOwner(aside);
    if (moved?.owner?.claim !== held.owner?.claim || moved?.touchedMs !== held.touchedMs) {
      await link(aside, ownerFile).catch(() => undefined);
      await unlink(aside).catch(() => undefined);
      return false;
    }
    await unlink(aside).catch(() => undefined);
  }
}

async function createOwnerFile(ownerFile: string, me: Owner): Promise<boolean> {
  try {
    const file = await open(ownerFile, "wx");
    try {
      await file.writeFile(JSON.stringify(me));
    } finally {
      await file.close();
    }
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
}

/** The owner file's content and heartbeat; undefined once it is gone. */
async function readOwner(ownerFile: string): Promise<Held | undefined> {
  let handle;
  try {
    handle = await open(ownerFile, "r");
  } catch {
    return undefined;
  }
  try {
    const [text, stat] = await Promise.all([handle.readFile("utf8"), handle.stat()]);
    try {
      return { owner: JSON.parse(text) as Owner, touchedMs: stat.mtimeMs };
    } catch {
      return { touchedMs: stat.mtimeMs };
    }
  } finally {
    await handle.close();
  }
}

// A claimer writes its owner file right after creating it; one still empty after this long was left by a crash.
const HALF_WRITTEN_AFTER_MS = 5_000;

function abandoned({ owner, touchedMs }: Held): boolean {
  const age = Date.now() - touchedMs;
  if (age > STALE_AFTER_MS) return true;
  if (owner === undefined) return age > HALF_WRITTEN_AFTER_MS;
  if (owner.host !== hostname()) return false;
  // In a container the restarted service often has the same pid as its predecessor: that one is gone too,
  // unless the claim is one this very process holds (tests start several replicas in one process).
  if (owner.pid === process.pid) return !heldHere.has(owner.claim);
  return !processRuns(owner.pid);
}

function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
