import { setTimeout as sleep } from "node:timers/promises";
import type { SystemApi } from "./system-api.js";

export const FLAKY_REPO = { host: "git.system.local", owner: "sys", name: "flaky-app" };

/** One upload's report: a test of its own that fails, and one all uploads share that passes. */
function junit(n: number): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<testsuites><testsuite name="stream" tests="2" failures="1">
  <testcase classname="stream.Upload" name="upload ${n} fails" file="test/stream.test.ts">
    <failure message="upload ${n}">AssertionError: upload ${n}</failure>
  </testcase>
  <testcase classname="stream.Shared" name="always passes" file="test/stream.test.ts"/>
</testsuite></testsuites>`;
}

/**
 * A stream of JUnit uploads to /v1/flaky-tests/upload while the faults happen, each with an upload_id so a
 * retry after a lost answer is a no-op. An upload counts as sent once answered 200: each adds one failing test,
 * so list-failing-tests must list exactly as many (none lost, none doubled).
 */
export class UploadStream {
  acknowledged = 0;
  private running = true;
  private readonly loop: Promise<void>;
  readonly runStartedAt = new Date(Date.now() - 60_000).toISOString();
  errors: string[] = [];

  constructor(
    private readonly api: SystemApi,
    intervalMs = 200,
  ) {
    this.loop = (async () => {
      let n = 0;
      while (this.running) {
        n += 1;
        const answer = await this.api
          .post("/flaky-tests/upload", {
            repo: FLAKY_REPO,
            commit_sha: n.toString(16).padStart(40, "0"),
            branch: `stream-${n}`,
            run_started_at: this.runStartedAt,
            upload_id: `system-upload-${n}`,
            junit: [junit(n)],
          })
          .catch((error: Error) => ({ status: 0, text: error.message }));
        if (answer.status === 200) this.acknowledged += 1;
        else this.errors.push(`upload ${n}: ${answer.status} ${answer.text}`);
        await sleep(intervalMs);
      }
    })();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  /** The failing tests list-failing-tests gives for the stream's repository, every page, and each page's total_rows. */
  async failingTests(org: string): Promise<{ tests: number; totalRows: number[] }> {
    const start = Date.parse(this.runStartedAt) - 3_600_000;
    let count = 0;
    const totalRows: number[] = [];
    let token = "";
    for (let page = 0; page < 1_000; page++) {
      const answer = await this.api.ok("/flaky-tests/list-failing-tests", {
        repo: FLAKY_REPO,
        org_url_slug: org,
        start_time: new Date(start).toISOString(),
        end_time: new Date(start + 24 * 3_600_000).toISOString(),
        page_query: { page_size: 100, ...(token ? { page_token: token } : {}) },
      });
      count += (answer.tests as unknown[]).length;
      const page = answer.page as { next_page_token?: string; total_rows?: number };
      totalRows.push(page.total_rows ?? -1);
      token = page.next_page_token ?? "";
      if (!token) return { tests: count, totalRows };
    }
    throw new Error("list-failing-tests gave more than 1000 pages");
  }
}
