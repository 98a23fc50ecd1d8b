import { lookup } from "node:dns/promises";
import { isIP, type LookupFunction } from "node:net";
import { lookup as lookupCallback } from "node:dns";
import { InvalidArgumentError } from "@mainline/kit/errors/index";
import { AddressAllowList, type AddressPolicy } from "../domain/address-rules.js";

/** A webhook URL that may not be used, with the reason the user and the delivery log see. */
export class RefusedUrlError extends InvalidArgumentError {
  constructor(reason: string) {
    super("url", reason);
  }
}

/**
 * Checks webhook URLs against the address policy: when a subscription is created, and again on every
 * delivery (DNS may answer differently later). At delivery the check sits in the socket's own lookup, so
 * the address that was checked is the address connected to (no rebinding between check and connect).
 */
export class UrlGuard {
  private readonly allowList: AddressAllowList;

  constructor(policy: AddressPolicy) {
    this.allowList = new AddressAllowList(policy);
  }

  /** Throws RefusedUrlError unless the URL is http(s) and every address its host resolves to is allowed. */
  async check(raw: string): Promise<URL> {
    const url = parseWebhookUrl(raw);
    const host = bareHost(url);
    const addresses =
      isIP(host) !== 0
        ? [host]
        : await lookup(host, { all: true, verbatim: true }).then(
            (found) => found.map((a) => a.address),
            () => {
              throw new RefusedUrlError(`host ${host} does not resolve`);
            },
          );
    this.assertAllowed(addresses);
    return url;
  }

  /** A lookup for http.request that refuses disallowed answers. */
  readonly lookup: LookupFunction = (hostname, options, callback) => {
    lookupCallback(hostname, { ...options, all: true, verbatim: true }, (error, found) => {
      if (error) return callback(error, "", 0);
      const refusal = found.map((a) => this.allowList.refusal(a.address)).find((r) => r !== undefined);
      if (refusal !== undefined) return callback(new RefusedUrlError(refusal), "", 0);
      if (options.all) return (callback as unknown as (e: null, all: typeof found) => void)(null, found);
      const first = found[0];
      if (first === undefined)
        return callback(new RefusedUrlError(`host ${hostname} does not resolve`), "", 0);
      callback(null, first.address, first.family);
    });
  };

  private assertAllowed(addresses: readonly string[]): void {
    for (const address of addresses) {
      const refusal = this.allowList.refusal(address);
      if (refusal !== undefined) throw new RefusedUrlError(refusal);
    }
  }
}

export function parseWebhookUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new RefusedUrlError("must be an absolute http or https URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new RefusedUrlError("must use http or https");
  }
  return url;
}

function bareHost(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, "");
}
