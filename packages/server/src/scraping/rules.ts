import net from 'node:net';
import { domainToASCII } from 'node:url';
import { Unprocessable } from '../lib/errors.js';

/** A scraping rule as stored (spec: id, domain, mode free text default allow, target, enabled). */
export interface ScrapingRuleLike {
  id?: number | string;
  domain: string;
  mode: string;
  target: string | null;
  enabled?: boolean;
}

const LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * The domain a rule is stored under: 'https://www.Example.com:8080/a?b' → 'example.com'.
 * Lower case, no scheme, credentials, path, port, leading 'www.' or trailing dot; IDNs in
 * their ASCII (punycode) form. Throws 422 for anything that is not a host name or IPv4 address.
 */
export function normalizeDomain(input: string): string {
  const invalid = (why: string) =>
    new Unprocessable(`Invalid domain '${input}': ${why}`, [{ field: 'domain', message: why }]);
  let s = input.trim().toLowerCase();
  if (!s)
    throw new Unprocessable('Domain is required', [{ field: 'domain', message: 'is required' }]);
  s = s.replace(/^[a-z][a-z0-9+.-]*:\/\//, '');
  s = s.split(/[/?#\\]/)[0] ?? '';
  s = s.slice(s.lastIndexOf('@') + 1);
  if (s.startsWith('[')) throw invalid('IPv6 addresses are not supported as rule domains');
  s = s.replace(/:\d*$/, '').replace(/\.$/, '');
  if (s.startsWith('www.')) s = s.slice(4);
  if (!s) throw invalid('it has no host name');
  if (net.isIPv4(s)) return s;
  if (/\.\d+$/.test(s) || /^\d+$/.test(s))
    throw invalid('it is neither a host name nor an IPv4 address');
  const ascii = domainToASCII(s);
  if (!ascii) throw invalid('it is not a valid host name');
  if (ascii.length > 253) throw invalid('it is longer than 253 characters');
  for (const label of ascii.split('.')) {
    if (!LABEL.test(label)) {
      throw invalid(
        label
          ? `'${label}' is not a valid label (letters, digits and inner hyphens, at most 63)`
          : 'it has an empty label',
      );
    }
  }
  return ascii;
}

/** Like `normalizeDomain` but never throws: for hosts taken from URLs already fetched. */
export function domainOf(hostOrUrl: string): string {
  try {
    return normalizeDomain(hostOrUrl);
  } catch {
    return hostOrUrl.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  }
}

/**
 * The enabled rule for a host: its domain equals the host or is a parent of it
 * (sub.example.com matches example.com); the longest domain wins, then the first listed.
 */
export function matchRule<R extends ScrapingRuleLike>(
  rules: readonly R[],
  hostname: string,
): R | null {
  const host = domainOf(hostname);
  let best: R | null = null;
  let bestLength = -1;
  for (const rule of rules) {
    if (rule.enabled === false) continue;
    let domain: string;
    try {
      domain = normalizeDomain(rule.domain);
    } catch {
      continue;
    }
    const matches = host === domain || (!net.isIP(host) && host.endsWith(`.${domain}`));
    if (matches && domain.length > bestLength) {
      best = rule;
      bestLength = domain.length;
    }
  }
  return best;
}

/** 'example.com (allow)', 'example.com (selector:article .content)': the console's rule label. */
export function describeRule(rule: Pick<ScrapingRuleLike, 'domain' | 'mode' | 'target'>): string {
  const mode = rule.mode.trim() || 'allow';
  const target = rule.target?.trim();
  return `${rule.domain} (${mode}${target ? `:${target}` : ''})`;
}
