import { BlockList } from "node:net";
import ipaddr from "ipaddr.js";
import { InvalidArgumentError } from "@mainline/kit/errors/index";

/**
 * Which addresses a webhook may be sent to (the server-side request forgery guard). A webhook URL is
 * chosen by a user, and the request comes from inside the cluster, so an address that reaches internal
 * services (loopback, private networks, link-local cloud metadata at 169.254.169.254) is refused unless
 * the operator allowed it.
 *
 * The ranges are ipaddr.js's names for the IANA special-purpose registries (IPv4 and IPv6), mapped here to
 * what they mean for a webhook; only ranges the registries mark globally reachable count as public. An IPv6
 * address that carries an IPv4 address (IPv4-mapped, IPv4-compatible, IPv4-translated, NAT64, 6to4, Teredo)
 * is judged by the IPv4 address it reaches.
 */
export type AddressClass = "unspecified" | "loopback" | "private" | "link-local" | "reserved" | "public";

const IPV4_CLASSES: Readonly<Record<string, AddressClass>> = {
  unicast: "public",
  unspecified: "unspecified",
  loopback: "loopback",
  private: "private",
  carrierGradeNat: "private",
  linkLocal: "link-local",
  broadcast: "reserved",
  multicast: "reserved",
  // 192.0.0.0/24, TEST-NETs, 192.88.99.0/24, benchmarking 198.18.0.0/15, 240.0.0.0/4.
  reserved: "reserved",
  // Globally reachable in the registry.
  as112: "public",
  amt: "public",
};

const IPV6_CLASSES: Readonly<Record<string, AddressClass>> = {
  unicast: "public",
  unspecified: "unspecified",
  loopback: "loopback",
  uniqueLocal: "private",
  deprecatedSiteLocal: "private",
  linkLocal: "link-local",
  multicast: "reserved",
  discard: "reserved",
  benchmarking: "reserved",
  deprecatedOrchid: "reserved",
  segmentRouting: "reserved",
  // 2001::/23 (IETF protocol assignments), 2001:db8::/32 and 3fff::/20 (documentation).
  reserved: "reserved",
  // Globally reachable in the registry.
  amt: "public",
  as112v6: "public",
  orchid2: "public",
  droneRemoteIdProtocolEntityTags: "public",
};

// Registry entries newer than ipaddr.js's table: the dummy IPv6 prefix 100:0:0:1::/64 (RFC 9780).
const NEWER_IPV6_RESERVED = [ipaddr.parseCIDR("100:0:0:1::/64")] as const;
// The NAT64 local-use prefix (RFC 8215) translates to addresses of the operator's choosing.
const NAT64_LOCAL_USE = ipaddr.parseCIDR("64:ff9b:1::/48");

type Address = ipaddr.IPv4 | ipaddr.IPv6;

function parse(address: string): Address {
  const bare = address.replace(/^\[|\]$/g, "");
  if (!ipaddr.isValid(bare)) throw new InvalidArgumentError("address", `${address} is not an IP address`);
  return ipaddr.parse(bare);
}

/** The IPv4 address an IPv6 address carries and reaches, for the forms that carry one. */
export function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const bytes = address.toByteArray();
  const v4 = (at: number) => new ipaddr.IPv4(bytes.slice(at, at + 4));
  switch (address.range()) {
    case "ipv4Mapped": // ::ffff:a.b.c.d
    case "rfc6145": // ::ffff:0:a.b.c.d
      return v4(12);
    case "rfc6052": // NAT64 64:ff9b::a.b.c.d
      return address.match(NAT64_LOCAL_USE) ? undefined : v4(12);
    case "6to4": // 2002:aabb:ccdd::
      return v4(2);
    case "teredo": // 2001:0:server:flags:port:client, the client address inverted
      return new ipaddr.IPv4(bytes.slice(12, 16).map((b) => b ^ 0xff));
  }
  // IPv4-compatible (deprecated) ::a.b.c.d: the first 96 bits zero, beyond :: and ::1.
  if (bytes.slice(0, 12).every((b) => b === 0) && !["unspecified", "loopback"].includes(address.range()))
    return v4(12);
  return undefined;
}

export function classifyAddress(address: string): AddressClass {
  return classify(parse(address));
}

function classify(ip: Address): AddressClass {
  if (ip.kind() === "ipv4") return IPV4_CLASSES[ip.range()] ?? "reserved";
  const v6 = ip as ipaddr.IPv6;
  if (v6.match(NAT64_LOCAL_USE)) return "private";
  if (NEWER_IPV6_RESERVED.some((range) => v6.match(range))) return "reserved";
  const carried = embeddedIPv4(v6);
  if (carried !== undefined) return classify(carried);
  // A name this table does not know (a newer ipaddr.js) is refused until someone says what it is.
  return IPV6_CLASSES[v6.range()] ?? "reserved";
}

/** What the operator allows beyond public addresses. */
export interface AddressPolicy {
  allowLoopback: boolean;
  /** CIDRs such as "10.20.0.0/16" or "fd00::/8" that are allowed whatever their class. */
  allowedCidrs: readonly string[];
}

export class AddressAllowList {
  private readonly cidrs = new BlockList();

  constructor(private readonly policy: AddressPolicy) {
    for (const cidr of policy.allowedCidrs) {
      let parsed: [Address, number];
      try {
        parsed = ipaddr.parseCIDR(cidr.trim());
      } catch {
        throw new InvalidArgumentError(
          "allowedCidrs",
          `"${cidr}" is not a CIDR such as 10.0.0.0/8 or fd00::/8`,
        );
      }
      const [network, prefix] = parsed;
      this.cidrs.addSubnet(network.toString(), prefix, network.kind());
    }
  }

  /** Undefined when the address may be used; otherwise why not, for the user and the delivery log. */
  refusal(address: string): string | undefined {
    const ip = parse(address);
    const cls = classify(ip);
    if (cls === "public") return undefined;
    if (cls === "loopback" && this.policy.allowLoopback) return undefined;
    // An allowed range admits the address as written and the IPv4 address it carries.
    const carried = ip.kind() === "ipv6" ? embeddedIPv4(ip as ipaddr.IPv6) : undefined;
    for (const candidate of [ip, carried]) {
      if (candidate !== undefined && this.cidrs.check(candidate.toString(), candidate.kind()))
        return undefined;
    }
    return `${address} is ${cls === "unspecified" ? "an" : "a"} ${cls} address, which webhooks may not reach`;
  }
}
