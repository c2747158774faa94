import net from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Which addresses the fetcher may connect to: public unicast only, unless an allow-list entry
 * (ADAM_FETCH_ALLOW) names the host or the address, optionally with the one port it opens.
 */

export interface AllowEntry {
  /** A lower-case hostname without trailing dot, or a canonical IP address. */
  host: string;
  /** Only this port is opened when set; any port otherwise. */
  port?: number;
  raw: string;
}

/** Parses 'host', 'host:port', 'ip', 'ip:port', '[v6]', '[v6]:port' and bare 'v6' entries. */
export function parseAllowList(entries: readonly string[]): AllowEntry[] {
  const out: AllowEntry[] = [];
  for (const raw of entries) {
    const s = raw.trim().toLowerCase();
    if (!s) continue;
    let host = s;
    let portText: string | undefined;
    const bracketed = /^\[([^\]]+)\](?::(.*))?$/.exec(s);
    if (bracketed) {
      host = bracketed[1] ?? '';
      portText = bracketed[2];
    } else if ((s.match(/:/g) ?? []).length === 1) {
      [host = '', portText] = s.split(':');
    }
    let port: number | undefined;
    if (portText !== undefined) {
      port = Number(portText);
      if (!/^\d{1,5}$/.test(portText) || port < 1 || port > 65535) {
        throw new Error(`Invalid fetch allow-list entry '${raw}': '${portText}' is not a port`);
      }
    }
    host = host.replace(/\.$/, '');
    if (net.isIP(host)) host = canonicalIp(host);
    else if (
      !/^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*$/.test(host)
    ) {
      throw new Error(`Invalid fetch allow-list entry '${raw}': '${host}' is not a host name`);
    }
    out.push({ host, port, raw: raw.trim() });
  }
  return out;
}

/** One spelling per address: IPv4-mapped IPv6 as its IPv4, IPv6 in its compact form. */
function canonicalIp(ip: string): string {
  return ipaddr.process(ip).toString();
}

/** The host as compared against allow entries: no brackets, lower case, no trailing dot. */
export function bareHost(hostname: string): string {
  const h = hostname
    .replace(/^\[(.*)\]$/, '$1')
    .toLowerCase()
    .replace(/\.$/, '');
  return net.isIP(h) ? canonicalIp(h) : h;
}

export function isAllowed(
  allow: readonly AllowEntry[],
  host: string,
  port: number,
  address?: string,
): boolean {
  const h = bareHost(host);
  const a = address === undefined ? undefined : canonicalIp(address);
  return allow.some(
    (e) => (e.host === h || (a !== undefined && e.host === a)) && (e.port ?? port) === port,
  );
}

/** Ports an allow entry opens for this host (to explain a refusal); empty when none names it. */
export function allowedPortsFor(
  allow: readonly AllowEntry[],
  host: string,
  address?: string,
): number[] {
  const h = bareHost(host);
  const a = address === undefined ? undefined : canonicalIp(address);
  return allow
    .filter((e) => e.port !== undefined && (e.host === h || e.host === a))
    .map((e) => e.port as number);
}

/**
 * The ipaddr.js range of an address; 'unicast' is the only public one. IPv4-mapped
 * (::ffff:a.b.c.d) and IPv4-compatible (::a.b.c.d) IPv6 addresses are judged by the IPv4
 * address they carry, since that is where the connection would go.
 */
export function addressRange(ip: string): string {
  const addr = ipaddr.parse(ip);
  if (addr.kind() === 'ipv6') {
    const v6 = addr as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().range();
    const p = v6.parts;
    const compatible =
      p.slice(0, 6).every((x) => x === 0) && !(p[6] === 0 && (p[7] === 0 || p[7] === 1));
    if (compatible) {
      const hi = p[6] ?? 0;
      const lo = p[7] ?? 0;
      return new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]).range();
    }
  }
  return addr.range();
}

const RANGE_TEXT: Record<string, string> = {
  unspecified: 'an unspecified address',
  broadcast: 'the broadcast address',
  multicast: 'a multicast address',
  linkLocal: 'a link-local address (where cloud metadata services live)',
  loopback: 'a loopback address',
  carrierGradeNat: 'a carrier-grade NAT address',
  private: 'a private network address',
  reserved: 'a reserved address',
  uniqueLocal: 'a unique-local IPv6 address',
  rfc6145: 'an IPv4-translated IPv6 address',
  rfc6052: 'a NAT64 address',
  '6to4': 'a 6to4 relay address',
  teredo: 'a Teredo tunnel address',
  benchmarking: 'a benchmarking address',
  deprecatedSiteLocal: 'a site-local IPv6 address',
};

/**
 * '127.0.0.1 is a loopback address', '::ffff:7f00:1 (IPv4 127.0.0.1) is a loopback address',
 * 'db.example resolves to 10.0.0.5, which is a private network address'.
 */
export function describeBlockedAddress(ip: string, range: string, resolvedFrom?: string): string {
  const what = RANGE_TEXT[range] ?? `a special-purpose address (${range})`;
  const addr = ipaddr.parse(ip);
  const processed = ipaddr.process(ip);
  const shown =
    addr.kind() === 'ipv6' && processed.kind() === 'ipv4'
      ? `${addr.toString()} (IPv4 ${processed.toString()})`
      : addr.toString();
  return resolvedFrom
    ? `${resolvedFrom} resolves to ${shown}, which is ${what}`
    : `${shown} is ${what}`;
}
