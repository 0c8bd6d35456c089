/**
 * The host's own networks, as a sealed run must not reach them (issue 54): loopback, the private
 * ranges, link-local (the cloud metadata address among them), carrier-grade NAT, multicast and
 * the unspecified address, IPv4 and IPv6 (an IPv4-mapped IPv6 address is its IPv4 one). A
 * request simnet forwards for a sealed run without the user having named its host (record mode,
 * `--passthrough '*'`) goes only to an address off them, checked on the address literal and, for
 * a name, on every address it resolves to (`publicLookup`), so a public name pointing at
 * 127.0.0.1 does not reach back either.
 */
import type * as Dns from "node:dns"
import type { LookupFunction } from "node:net"
import * as net from "node:net"

const LOCAL = (() => {
  const list = new net.BlockList()
  for (const [address, prefix] of [
    ["0.0.0.0", 8],
    ["10.0.0.0", 8],
    ["100.64.0.0", 10],
    ["127.0.0.0", 8],
    ["169.254.0.0", 16],
    ["172.16.0.0", 12],
    ["192.168.0.0", 16],
    ["224.0.0.0", 4],
    ["240.0.0.0", 4]
  ] as const)
    list.addSubnet(address, prefix, "ipv4")
  for (const [address, prefix] of [
    ["::", 128],
    ["::1", 128],
    ["fc00::", 7],
    ["fe80::", 10],
    ["ff00::", 8]
  ] as const)
    list.addSubnet(address, prefix, "ipv6")
  return list
})()

/** Whether `address` (an IP address) is on the host's own networks; a name is not an address, and is not. */
export const isHostLocal = (address: string): boolean => {
  const bare = address.startsWith("[") ? address.slice(1, -1) : address
  const family = net.isIP(bare)
  return family !== 0 && LOCAL.check(bare, family === 4 ? "ipv4" : "ipv6")
}

/** Why a sealed run's request is not forwarded to `address`, which `hostname` names. */
export const hostLocalMessage = (hostname: string, address: string): string =>
  `${hostname}${hostname === address ? "" : ` (${address})`} is on the host's own network: a sealed run's requests are not forwarded there unless its host is named by --upstream or --passthrough`

/**
 * A `lookup` for `node:http`, `node:https` and `ws` that resolves as Node does and refuses a name
 * with any address on the host's own networks (see the module's comment).
 */
export const publicLookup: LookupFunction = (hostname, options, callback) => {
  const dns: typeof Dns = process.getBuiltinModule("node:dns")
  dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error !== null) return callback(error, "", 0)
    const local = addresses.find((entry) => isHostLocal(entry.address))
    if (local !== undefined)
      return callback(
        Object.assign(new Error(hostLocalMessage(hostname, local.address)), { code: "EHOSTLOCAL" }),
        "",
        0
      )
    if (options.all === true)
      return (callback as unknown as (error: null, all: Array<Dns.LookupAddress>) => void)(null, addresses)
    return callback(null, addresses[0]!.address, addresses[0]!.family)
  })
}
