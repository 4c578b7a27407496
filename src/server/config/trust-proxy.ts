import { isIP } from 'node:net';
import { text } from './variables.js';

/** TRUST_PROXY values that believe every peer's X-Forwarded-For: any client could choose its address. */
const TRUSTS_EVERYONE = new Set(['true', '*', 'all']);
/** Ranges @fastify/proxy-addr knows by name (loopback: 127.0.0.1/8 and ::1; uniquelocal: the private networks). */
const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);
const TRUST_PROXY_FORM =
  "TRUST_PROXY must be false, or the reverse proxies' addresses or CIDR ranges separated by commas (e.g. 127.0.0.1 or 10.0.0.0/8, fd00::/8)";

/** Fastify's trustProxy for the setting: a hop count becomes "the nearest N peers are proxies". */
export function trustProxyOption(
  setting: boolean | string[] | { hops: number },
): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (typeof setting === 'object' && !Array.isArray(setting)) return (_address, hop) => hop < setting.hops;
  return setting;
}

/** Whether TRUST_PROXY, as written, believes every peer: refused in production (productionProblems). */
export function trustsEveryone(raw: string | undefined): boolean {
  const entries =
    raw
      ?.toLowerCase()
      .split(/[\s,]+/)
      .filter(Boolean) ?? [];
  // A /0 range is every address too, written another way.
  return entries.some((entry) => TRUSTS_EVERYONE.has(entry) || /\/0+$/.test(entry));
}

/** One proxy entry: an address, an address/prefix CIDR range, or a range name. */
function isProxyEntry(entry: string): boolean {
  if (PROXY_RANGE_NAMES.has(entry) || isIP(entry) !== 0) return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || prefix === undefined || rest.length > 0 || !/^\d{1,3}$/.test(prefix)) return false;
  return Number(prefix) <= (family === 4 ? 32 : 128);
}

/**
 * TRUST_PROXY: whose X-Forwarded-For (and -Proto, -Host) the shop believes. Unset or false: no
 * one's, the socket's peer is the client. Otherwise the reverse proxies' addresses or CIDR ranges,
 * separated by commas or spaces, which Fastify's `trustProxy` takes as a list: a header from any
 * other peer is ignored, so a client that reaches the shop directly cannot choose its address.
 * true (or * or all) believes every peer, allowed outside production only. A whole number is a
 * hop count: the nearest N peers are taken for proxies whatever their address. Only for a shop
 * that no client can reach but through those proxies (a firewall in front): a client that reaches
 * it directly could choose its address. Fastify (5.12.1 on) no longer takes a number itself, so
 * app.ts gives it a trust function (trustProxyOption).
 */
export const trustProxySetting = text().transform((raw, ctx): boolean | string[] | { hops: number } => {
  const value = raw?.trim().toLowerCase();
  if (value === undefined || value === 'false' || value === '0') return false;
  if (TRUSTS_EVERYONE.has(value)) return true;
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    if (hops > 10) ctx.addIssue({ code: 'custom', message: `TRUST_PROXY=${value}: a hop count is at most 10 proxies` });
    return { hops };
  }
  const entries = value.split(/[\s,]+/).filter(Boolean);
  const wrong = entries.find((entry) => !isProxyEntry(entry));
  if (wrong !== undefined) {
    ctx.addIssue({ code: 'custom', message: `${TRUST_PROXY_FORM}, got "${wrong}"` });
    return false;
  }
  return entries;
});
