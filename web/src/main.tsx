import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { currentSession, onSignedOut, signOut, type SessionInfo } from "./api.js";
import { useRoute } from "./router.js";
import { FlakyTestsPage } from "./pages/flaky-tests.js";
import { PullRequestPage } from "./pages/pull-request.js";
import { QueuePage } from "./pages/queue.js";
import { QueueInsights } from "./pages/queue-insights.js";
import { QueuesPage } from "./pages/queues.js";
import { SignInPage } from "./pages/sign-in.js";
import { TestPage } from "./pages/test.js";
import "./style.css";

function Pages({ session }: { session: SessionInfo }) {
  const route = useRoute();
  switch (route.page) {
    case "queues":
      return <QueuesPage />;
    case "queue":
      return <QueuePage repo={route.repo} branch={route.branch} view={route.view} />;
    case "insights":
      return (
        <main id="main">
          <h1>Insights: every queue of {session.org}</h1>
          <QueueInsights />
        </main>
      );
    case "pull-request":
      return <PullRequestPage repo={route.repo} branch={route.branch} pr={route.pr} />;
    case "flaky-tests":
      return <FlakyTestsPage org={session.org} {...(route.repo ? { repo: route.repo } : {})} />;
    case "test":
      return <TestPage session={session} org={route.org} repo={route.repo} testId={route.testId} />;
    default:
      return (
        <main id="main">
          <h1>Page not found</h1>
          <p>
            Nothing lives at this address. Go to <a href="/">the queues</a>.
          </p>
        </main>
      );
  }
}

function App() {
  const [session, setSession] = useState<SessionInfo | null | undefined>(undefined);
  const [problem, setProblem] = useState<string>();
  useEffect(() => {
    currentSession().then(
      (s) => setSession(s ?? null),
      (e: Error) => setProblem(e.message),
    );
    return onSignedOut(() => setSession(null));
  }, []);
  if (problem) return <p role="alert">The gateway did not answer: {problem}</p>;
  if (session === undefined) return <p class="loading">Loading Mainline…</p>;
  if (session === null) return <SignInPage onSignedIn={setSession} />;
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href="/">
          Mainline
        </a>
        <nav aria-label="Main">
          <a href="/">Queues</a>
          <a href="/flaky-tests">Flaky tests</a>
          <a href="/insights">Insights</a>
        </nav>
        <span class="org" title="The organisation of the token you signed in with">
          {session.org}
        </span>
        <button type="button" onClick={() => void signOut().finally(() => setSession(null))}>
          Sign out
        </button>
      </header>
      <Pages session={session} />
    </>
  );
}

render(<App />, document.getElementById("app")!);
