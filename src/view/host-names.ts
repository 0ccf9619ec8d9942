/**
 * The names `view` answers to (its defence against DNS rebinding: a page of another site whose name was pointed at
 * this server sends that site's name in Host, and is refused). A request's Host header must name the server by its
 * bound address, by a name given for it, or, bound to every interface (`0.0.0.0`, `::`), by an address of one of the
 * machine's interfaces or its hostname. The port is not compared: a port mapping (a container's `-p 9000:8080`)
 * changes the port the browser names, and a rebinding attacker controls the name, not the port.
 */
import { hostname, networkInterfaces } from 'node:os';
import { isIPv6 } from 'node:net';
import { ConfigError } from '../errors.js';

/** The host of a Host header (or of `--allow-host`), lowercased, without its port; undefined when it is not one. */
export function hostOf(header: string | undefined): string | undefined {
  const m = /^(\[[0-9a-f:.]+\]|[a-z0-9_.-]+)(?::\d{1,5})?$/.exec((header ?? '').toLowerCase());
  return m?.[1]?.replace(/\.$/, '');
}

/** Whether `address` (as `server.address()` gives it) is a loopback address. */
export function isLoopback(address: string): boolean {
  return /^127\./.test(address) || address === '::1' || /^::ffff:127\./i.test(address);
}

const WILDCARD = new Set(['0.0.0.0', '::']);

/** An address as a Host header names it (IPv6 in brackets). */
const asHost = (address: string): string => (isIPv6(address) ? `[${address.toLowerCase()}]` : address);

/** Throws a ConfigError naming the first of `names` that is not a host name or address (with or without a port). */
export function checkHostNames(names: readonly string[]): void {
  const bad = names.find((name) => hostOf(name) === undefined);
  if (bad !== undefined)
    throw new ConfigError(
      `--allow-host must be a host name or address (optionally with :port), got ${JSON.stringify(bad)}`,
    );
}

/**
 * The hosts accepted for a server bound at `address` (`requested`: the `host` option, an address or a name), with
 * `extra` names (`--allow-host`, checked by `checkHostNames`; a port is allowed and ignored).
 */
export function allowedHosts(address: string, requested: string, extra: readonly string[] = []): Set<string> {
  const hosts = new Set<string>([asHost(address)]);
  const named = hostOf(requested);
  if (named !== undefined) hosts.add(named);
  if (isLoopback(address)) for (const h of ['localhost', '127.0.0.1', '[::1]']) hosts.add(h);
  if (WILDCARD.has(address)) {
    for (const h of ['localhost', '127.0.0.1', hostname().toLowerCase()]) hosts.add(h);
    for (const list of Object.values(networkInterfaces())) {
      for (const a of list ?? []) {
        if (address === '::' || a.family === 'IPv4') hosts.add(asHost(a.address.replace(/%.*$/, '')));
      }
    }
    if (address === '::') hosts.add('[::1]');
  }
  for (const name of extra) {
    const host = hostOf(name);
    if (host !== undefined) hosts.add(host);
  }
  return hosts;
}
