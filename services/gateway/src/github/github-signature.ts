import { Webhooks } from "@octokit/webhooks";
import { UnauthenticatedError } from "@mainline/kit/errors/index";

/**
 * GitHub's webhook signature (`X-Hub-Signature-256`, HMAC-SHA256 of the exact body with the App's webhook
 * secret), checked by @octokit/webhooks. It is the only credential of POST /v1/github/webhooks: GitHub cannot
 * send an API token. verify() compares in constant time.
 */
export class GitHubSignature {
  private readonly webhooks: Webhooks;

  constructor(secret: string) {
    this.webhooks = new Webhooks({ secret });
  }

  async check(rawBody: string, signature: string): Promise<void> {
    if (!signature)
      throw new UnauthenticatedError(
        "Unauthorized: the X-Hub-Signature-256 header is missing; GitHub signs every delivery",
      );
    // An empty body cannot be verified (verify() refuses it); it is then simply not signed correctly.
    const valid =
      rawBody !== "" &&
      /^sha256=[0-9a-f]{64}$/i.test(signature.trim()) &&
      (await this.webhooks.verify(rawBody, signature.trim()).catch(() => false));
    if (!valid)
      throw new UnauthenticatedError(
        "Unauthorized: the X-Hub-Signature-256 signature does not match the body and the App's webhook secret",
      );
  }
}
