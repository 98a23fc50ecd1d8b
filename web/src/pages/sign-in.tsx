import { useState } from "preact/hooks";
import { signIn, type SessionInfo } from "../api.js";

export function SignInPage({ onSignedIn }: { onSignedIn: (s: SessionInfo) => void }) {
  const [token, setToken] = useState("");
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      onSignedIn(await signIn(token));
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main id="main" class="sign-in">
      <h1>Sign in to Mainline</h1>
      <form onSubmit={(e) => void submit(e)}>
        <label for="token">API token</label>
        <input
          id="token"
          name="token"
          type="password"
          autocomplete="off"
          required
          value={token}
          onInput={(e) => setToken(e.currentTarget.value)}
          aria-describedby="token-help"
          aria-invalid={error ? "true" : undefined}
        />
        <p id="token-help" class="help">
          Paste an API token of your organisation once; the browser then keeps a session (an HttpOnly cookie),
          never the token. <code>make dev</code> writes one to <code>.data/dev-api-token</code>; an admin
          makes more with <code>POST /v1/admin/tokens</code>.
        </p>
        {error && (
          <p role="alert" class="error">
            {error}
          </p>
        )}
        <button type="submit" disabled={busy}>
          {busy ? "Signing in…" : "Sign in"}
        </button>
      </form>
    </main>
  );
}
