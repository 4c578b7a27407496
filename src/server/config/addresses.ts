import ipaddr from 'ipaddr.js';

/** Whether an address is reached from the internet, as production needs PUBLIC_URL and M-Pesa's callback address to be. */

/** The address names this machine only: `localhost`, `*.localhost`. */
function namesLocalhost(address: string): boolean {
  try {
    const host = new URL(address).hostname.toLowerCase().replace(/\.$/, '');
    return host === 'localhost' || host.endsWith('.localhost');
  } catch {
    return true;
  }
}

export function publicHttps(address: string): boolean {
  return /^https:\/\/[^/\s]/i.test(address) && !namesLocalhost(address);
}

/**
 * Addresses Safaricom's callbacks never reach: this machine's, and a private network's. (The shop
 * itself may run in production on 127.0.0.1 behind a local nginx, as its staging tests do.)
 */
const UNREACHABLE_RANGES = new Set(['loopback', 'unspecified', 'private', 'linkLocal', 'uniqueLocal', 'carrierGradeNat']);

export function reachableBySafaricom(address: string): boolean {
  if (!publicHttps(address)) return false;
  // The URL parser has already written 127.1 or 0x7f000001 as 127.0.0.1; an IPv6 host keeps its brackets.
  const host = new URL(address).hostname.replace(/^\[|\]$/g, '');
  return !ipaddr.isValid(host) || !UNREACHABLE_RANGES.has(ipaddr.process(host).range());
}
