import { verify } from "@octokit/webhooks-methods";
import { UnauthenticatedError } from "@mainline/kit/errors/index";

export const SIGNATURE_HEADER = "x-hub-signature-256";

/**
 * Checks a code-host webhook's `X-Hub-Signature-256` (HMAC-SHA256 of the raw body, GitHub's scheme) when a
 * secret is configured. Without a secret events are accepted unsigned: that is the plain-git setup, where the
 * API token is the only credential. A failure is a 401 that says which of the two problems it was.
 */
export async function checkWebhookSignature(
  secret: string | undefined,
  rawBody: string,
  signature: string,
): Promise<void> {
  if (secret === undefined) return;
  if (!signature)
    throw new UnauthenticatedError(
      "Unauthorized: the X-Hub-Signature-256 header is missing; this gateway requires signed code-host events",
    );
  // verify() refuses an empty payload outright; an empty body is then simply not signed correctly.
  const valid = rawBody !== "" && (await verify(secret, rawBody, signature.trim()));
  if (!valid)
    throw new UnauthenticatedError(
      "Unauthorized: the X-Hub-Signature-256 signature does not match the body and the configured secret",
    );
}
