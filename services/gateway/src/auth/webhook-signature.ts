import { verify } from "@octokit/webhooks-methods";
import { UnauthenticatedError } from "@mainline/kit/errors/index";

export const SIGNATURE_HEADER = "x-hub-signature-256";

/** How a refusal ends: why a signature was expected, and whose secret it must match. */
export interface SignatureWording {
  missing: string;
  mismatch: string;
}

/**
 * Checks `X-Hub-Signature-256` (HMAC-SHA256 of the exact raw body with `secret`, GitHub's scheme) in constant
 * time. It guards both the GitHub App's webhook and the plain code-host events. A failure is a 401 that says
 * which of the two problems it was.
 */
export async function checkWebhookSignature(
  secret: string,
  rawBody: string,
  signature: string,
  wording: SignatureWording,
): Promise<void> {
  if (!signature)
    throw new UnauthenticatedError(
      `Unauthorized: the X-Hub-Signature-256 header is missing; ${wording.missing}`,
    );
  // verify() refuses an empty payload or signature outright; either is then simply not signed correctly.
  const given = signature.trim();
  const valid = rawBody !== "" && given !== "" && (await verify(secret, rawBody, given));
  if (!valid)
    throw new UnauthenticatedError(
      `Unauthorized: the X-Hub-Signature-256 signature does not match the body and ${wording.mismatch}`,
    );
}
