import { example, through, type Payload } from "./github-deliveries.js";
import { ACME, INSTALLATION } from "./github-app-system.js";

/** What GitHub tells of CI on a test branch and of pushes, through the end-to-end tests' installation. */

export function checkSuiteCompleted(testBranch: string, sha: string, conclusion: string): Payload {
  const p = through(example("check_suite", "completed"), INSTALLATION, ACME);
  p.check_suite.head_branch = testBranch;
  p.check_suite.head_sha = sha;
  p.check_suite.status = "completed";
  p.check_suite.conclusion = conclusion;
  p.check_suite.app = { ...p.check_suite.app, name: "GitHub Actions" };
  return p;
}

/** A check run, still in progress when `conclusion` is null. */
export function checkRun(testBranch: string, sha: string, name: string, conclusion: string | null): Payload {
  const p = through(example("check_run", "completed"), INSTALLATION, ACME);
  p.check_run.name = name;
  p.check_run.head_sha = sha;
  p.check_run.status = conclusion === null ? "in_progress" : "completed";
  p.check_run.conclusion = conclusion;
  p.check_run.check_suite = { ...p.check_run.check_suite, head_branch: testBranch, head_sha: sha };
  return p;
}

export function commitStatusOf(testBranch: string, sha: string, context: string, state: string): Payload {
  const p = through(example("status", undefined), INSTALLATION, ACME);
  p.sha = sha;
  p.context = context;
  p.state = state;
  p.target_url = `https://ci.example.com/${context}/${sha}`;
  p.branches = [{ name: testBranch, commit: { sha, url: "https://example.com" }, protected: false }];
  return p;
}

/** A GitHub Actions workflow run in check suite `suiteId`, requested when `conclusion` is null. */
export function workflowRun(
  testBranch: string,
  sha: string,
  name: string,
  suiteId: number,
  conclusion: string | null,
): Payload {
  const p = through(
    example("workflow_run", conclusion === null ? "requested" : "completed"),
    INSTALLATION,
    ACME,
  );
  p.workflow_run.name = name;
  p.workflow_run.head_sha = sha;
  p.workflow_run.head_branch = testBranch;
  p.workflow_run.check_suite_id = suiteId;
  p.workflow_run.status = conclusion === null ? "in_progress" : "completed";
  p.workflow_run.conclusion = conclusion;
  if (p.workflow) p.workflow.name = name;
  return p;
}

/** The completed check suite of one GitHub Actions workflow (each workflow has its own). */
export function actionsSuite(testBranch: string, sha: string, suiteId: number, conclusion: string): Payload {
  const p = checkSuiteCompleted(testBranch, sha, conclusion);
  p.check_suite.id = suiteId;
  return p;
}

export function pushTo(branch: string, before: string, after: string): Payload {
  const p = through(
    example("push", undefined, (e) => String(e.ref).startsWith("refs/heads/")),
    INSTALLATION,
    ACME,
  );
  p.ref = `refs/heads/${branch}`;
  p.before = before;
  p.after = after;
  p.deleted = false;
  p.forced = false;
  return p;
}
