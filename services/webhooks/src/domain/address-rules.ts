import { BlockList, isIP } from "node:net";
import { InvalidArgumentError } from "@mainline/kit/errors/index";

/**
 * Which addresses a webhook may be sent to (the server-side request forgery guard). A webhook URL is
 * chosen by a user, and the request comes from inside the cluster, so an address that reaches internal
 * services (loopback, private networks, link-local cloud metadata at 169.254.169.254) is refused unless
 * the operator allowed it.
 */
export type AddressClass = "unspecified" | "loopback" | "private" | "link-local" | "reserved" | "public";

const RANGES: readonly [Exclude<AddressClass, "public">, string, number, "ipv4" | "ipv6"][] = [
  ["unspecified", "0.0.0.0", 8, "ipv4"],
  ["unspecified", "::", 128, "ipv6"],
  ["loopback", "127.0.0.0", 8, "ipv4"],
  ["loopback", "::1", 128, "ipv6"],
  ["private", "10.0.0.0", 8, "ipv4"],
  ["private", "172.16.0.0", 12, "ipv4"],
  ["private", "192.168.0.0", 16, "ipv4"],
  // Carrier-grade NAT (RFC 6598): private in practice.
  ["private", "100.64.0.0", 10, "ipv4"],
  // Unique local addresses (RFC 4193).
  ["private", "fc00::", 7, "ipv6"],
  ["link-local", "169.254.0.0", 16, "ipv4"],
  ["link-local", "fe80::", 10, "ipv6"],
  ["reserved", "224.0.0.0", 4, "ipv4"],
  ["reserved", "240.0.0.0", 4, "ipv4"],
  ["reserved", "ff00::", 8, "ipv6"],
];

const LISTS = new Map<AddressClass, BlockList>();
for (const [cls, network, prefix, family] of RANGES) {
  const list = LISTS.get(cls) ?? new BlockList();
  list.addSubnet(network, prefix, family);
  LISTS.set(cls, list);
}

/** An IPv4-mapped IPv6 address (::ffff:a.b.c.d, or its hex form) is judged as the IPv4 address. */
export function normalizeAddress(address: string): { address: string; family: "ipv4" | "ipv6" } {
  const bare = address.replace(/^\[|\]$/g, "").toLowerCase();
  const dotted = /^(?:(?:0{1,4}:){5}|::)ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(bare);
  if (dotted?.[1]) return { address: dotted[1], family: "ipv4" };
  const hex = /^(?:(?:0{1,4}:){5}|::)ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(bare);
  if (hex?.[1] && hex[2]) {
    const high = parseInt(hex[1], 16);
    const low = parseInt(hex[2], 16);
    return { address: `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`, family: "ipv4" };
  }
  return { address: bare, family: isIP(bare) === 4 ? "ipv4" : "ipv6" };
}

export function classifyAddress(address: string): AddressClass {
  const { address: a, family } = normalizeAddress(address);
  if (isIP(a) === 0) throw new InvalidArgumentError("address", `${address} is not an IP address`);
  for (const [cls, list] of LISTS) if (list.check(a, family)) return cls;
  return "public";
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
      const [network = "", prefixText = ""] = cidr.trim().split("/");
      const family = isIP(network);
      const prefix = Number(prefixText);
      const max = family === 4 ? 32 : 128;
      if (family === 0 || !/^\d+$/.test(prefixText) || prefix > max) {
        throw new InvalidArgumentError(
          "allowedCidrs",
          `"${cidr}" is not a CIDR such as 10.0.0.0/8 or fd00::/8`,
        );
      }
      this.cidrs.addSubnet(network, prefix, family === 4 ? "ipv4" : "ipv6");
    }
  }

  /** Undefined when the address may be used; otherwise why not, for the user and the delivery log. */
  refusal(address: string): string | undefined {
    const cls = classifyAddress(address);
    if (cls === "public") return undefined;
    if (cls === "loopback" && this.policy.allowLoopback) return undefined;
    const { address: a, family } = normalizeAddress(address);
    if (this.cidrs.check(a, family)) return undefined;
    return `${address} is ${cls === "unspecified" ? "an" : "a"} ${cls} address, which webhooks may not reach`;
  }
}
