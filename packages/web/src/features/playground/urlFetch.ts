/**
 * The Playground URL's pure parts (spec 001 §2.9, §3, §8): rule labels, the info line's rule
 * text, the failure text and the inert document of the raw HTML preview.
 */
import type { FetchUrlResponse, ScrapingRule } from '@adam/contracts';
import { isApiError } from '../../api/client';
import { PLAYGROUND_MESSAGES, withDetail } from './messages';

/** 'domain (mode)' or 'domain (mode:target)', the target only when there is one. */
export function ruleLabel(rule: Pick<ScrapingRule, 'domain' | 'mode' | 'target'>): string {
  const target = rule.target?.trim();
  return `${rule.domain} (${rule.mode}${target ? `:${target}` : ''})`;
}

export interface RuleUsed {
  /** What the info line says. */
  text: string;
  /** True when a specific rule shaped the extraction (the answer's rule has a colon). */
  specific: boolean;
  /** The rule that matched without changing the extraction, for a hint beside 'No rule applied'. */
  matched: string | null;
}

/**
 * The info line's rule. The server names the rule it used as describeRule() does
 * ('example.org (selector:article)'), or says it found none for the domain. A colon means a
 * specific rule was used (spec 001 §3). Without one:
 * - no rule matched the domain (no rule id): 'No specific rule found – using default';
 * - a rule matched (an allow rule, or a selector rule without target) but has nothing to apply to
 *   the extraction: 'No rule applied', the default extraction ran.
 */
export function ruleUsed(answer: Pick<FetchUrlResponse, 'rule' | 'rule_id'>): RuleUsed {
  const rule = answer.rule.trim();
  if (rule.includes(':')) return { text: rule, specific: true, matched: null };
  const matched =
    answer.rule_id !== null &&
    answer.rule_id !== undefined &&
    rule &&
    rule !== PLAYGROUND_MESSAGES.noSpecificRule
      ? rule
      : null;
  return matched
    ? { text: PLAYGROUND_MESSAGES.noRuleApplied, specific: false, matched }
    : { text: PLAYGROUND_MESSAGES.noSpecificRule, specific: false, matched: null };
}

const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v.trim() : null);

/** The detail of a failed call: the JSON error body's `detail` unwrapped, else the message. */
export function failureDetail(error: unknown): string | null {
  if (isApiError(error)) {
    const body = error.details;
    const detail =
      body && typeof body === 'object' && 'detail' in body
        ? (body as { detail: unknown }).detail
        : undefined;
    if (text(detail)) return text(detail);
    // FastAPI-style lists: [{msg}] or [{message}].
    if (Array.isArray(detail)) {
      const parts = detail
        .map(
          (d: unknown) =>
            text(d) ??
            text((d as { msg?: unknown })?.msg) ??
            text((d as { message?: unknown })?.message),
        )
        .filter((d): d is string => !!d);
      if (parts.length) return parts.join('; ');
    }
    return text(error.message);
  }
  if (error instanceof Error) {
    // A message that is itself a JSON error body.
    try {
      const parsed = JSON.parse(error.message) as { detail?: unknown } | null;
      if (text(parsed?.detail)) return text(parsed?.detail);
    } catch {
      // Not JSON: the message as it is.
    }
    return text(error.message);
  }
  return null;
}

/** 'Failed to fetch URL: {detail}'. */
export const fetchUrlFailureText = (error: unknown): string =>
  withDetail(PLAYGROUND_MESSAGES.fetchUrlFailed, failureDetail(error));

/** Everything the preview may load: nothing but the page's own inline styles. */
export const PREVIEW_CSP = "default-src 'none'; style-src 'unsafe-inline'";

/**
 * The fetched page as the preview frame's srcdoc, made inert. The frame is sandboxed without
 * any permission (no script, no popup, no form, no top navigation) and this document carries a
 * CSP that blocks every request (images, fonts, stylesheets, frames). On top of that, parsed
 * with DOMParser (which neither runs nor loads anything): scripts, links (preconnect and
 * DNS prefetch escape CSP), meta refresh and base elements are removed, and every link opens a
 * new window, which the sandbox refuses, so a click in the preview cannot navigate it either.
 */
export function inertPreviewDocument(html: string): string {
  const doc = new DOMParser().parseFromString(html, 'text/html');
  const drop = 'script, link, base, meta[http-equiv="refresh" i]';
  for (const el of Array.from(doc.querySelectorAll(drop))) el.remove();
  for (const el of Array.from(doc.querySelectorAll('a, area, form'))) {
    el.setAttribute('target', '_blank');
  }
  doc.documentElement.removeAttribute('manifest');

  const head = doc.head;
  const meta = (attrs: Record<string, string>) => {
    const el = doc.createElement('meta');
    for (const [name, value] of Object.entries(attrs)) el.setAttribute(name, value);
    return el;
  };
  const base = doc.createElement('base');
  base.setAttribute('target', '_blank');
  // The policy first: it applies from where it is parsed on.
  head.prepend(
    meta({ 'http-equiv': 'Content-Security-Policy', content: PREVIEW_CSP }),
    meta({ name: 'referrer', content: 'no-referrer' }),
    base,
  );
  // Keep the page's standards or quirks mode.
  return `${doc.doctype ? '<!DOCTYPE html>\n' : ''}${doc.documentElement.outerHTML}`;
}

/** The host a typed URL points at, as rules are keyed (no www.), or null when it is not a URL. */
export function domainOfInput(input: string): string | null {
  const s = input.trim();
  if (!s) return null;
  try {
    const url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(s) ? s : `https://${s}`);
    const host = url.hostname.toLowerCase().replace(/\.$/, '');
    return host ? host.replace(/^www\./, '') : null;
  } catch {
    return null;
  }
}
