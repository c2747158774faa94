import { NotFound } from '../lib/errors.js';
import { assertRuleAllowsFetch, extractResponse, ruleMode } from './extract.js';
import { FetchError } from './fetch-error.js';
import { describeRule, domainOf, matchRule, type ScrapingRuleLike } from './rules.js';
import type { FetchResult, SafeFetcher } from './safe-fetcher.js';

/** The console's text when no rule applied (spec 001 §2.9), en dash included. */
type Extractor = (
  res: FetchResult,
  rule: ScrapingRuleLike | null,
) => Promise<ReturnType<typeof extractResponse>>;

export const NO_RULE_TEXT = 'No specific rule found – using default';
/** The raw HTML preview is cut here; a closing comment says so and `html_truncated` is set. */
export const HTML_PREVIEW_MAX_CHARS = 200_000;

/** The answer of POST /playground/fetch-url (spec 001 §3 'URL fetch result') plus extras. */
interface UrlFetchResult {
  /** The extracted text. */
  content: string;
  /** The raw page (HTML or text) for the preview, at most HTML_PREVIEW_MAX_CHARS characters. */
  html: string;
  /** Characters of the raw page. */
  original_length: number;
  /** Characters of the extracted text. */
  clean_length: number;
  /** The final page's domain, as rules are keyed ('www.' dropped). */
  domain: string;
  /** describeRule() of the rule used, or NO_RULE_TEXT. */
  rule: string;
  rule_id: number | string | null;
  title: string;
  /** The final URL, after redirects. */
  url: string;
  html_truncated: boolean;
  warnings: string[];
}

/**
 * Fetches a URL for the URL playground and extracts it under the scraping rules.
 *
 * - Without `ruleId` the rule matching the final page's host applies (longest domain wins).
 * - With `ruleId` that rule applies even when its domain differs from the URL's: the playground
 *   is where an operator tries a rule on a page before saving it for that domain. Disabled rules
 *   can be tried the same way. An unknown id is a 404.
 * - A deny rule always wins: one matching the URL's host, any redirect target's host, or chosen
 *   by id refuses the fetch before any request to that host.
 * - A URL typed without a scheme ('example.com/page') is fetched over https.
 */
export async function fetchUrl(
  fetcher: Pick<SafeFetcher, 'fetch'>,
  url: string,
  rules: readonly ScrapingRuleLike[],
  ruleId?: number | string | null,
  /** Extraction is CPU work: the server passes one that runs on its worker threads. */
  extract: Extractor = async (res, rule) => extractResponse(res, rule),
  /** A job's (WorkContext.signal): its cancel or stop closes the connection at once. */
  signal?: AbortSignal,
): Promise<UrlFetchResult> {
  const target = withScheme(url);
  let chosen: ScrapingRuleLike | null = null;
  if (ruleId !== undefined && ruleId !== null && ruleId !== '') {
    chosen = rules.find((r) => String(r.id) === String(ruleId)) ?? null;
    if (!chosen) throw new NotFound('scraping rule', ruleId);
    assertRuleAllowsFetch(target, chosen);
  }

  const res = await fetcher.fetch(target, {
    signal,
    guard: (hop) => {
      const rule = matchRule(rules, hop.hostname);
      if (rule && ruleMode(rule).mode === 'deny') assertRuleAllowsFetch(hop.href, rule);
    },
  });

  const finalHost = new URL(res.url).hostname;
  const rule = chosen ?? matchRule(rules, finalHost);
  const extracted = await extract(res, rule);
  const raw = extracted.raw;
  const truncated = raw.length > HTML_PREVIEW_MAX_CHARS;
  const html = truncated
    ? `${raw.slice(0, HTML_PREVIEW_MAX_CHARS)}\n<!-- preview truncated: first ${HTML_PREVIEW_MAX_CHARS} of ${raw.length} characters shown -->`
    : raw;

  return {
    content: extracted.text,
    html,
    original_length: raw.length,
    clean_length: extracted.text.length,
    domain: domainOf(finalHost),
    rule: rule ? describeRule(rule) : NO_RULE_TEXT,
    rule_id: rule?.id ?? null,
    title: extracted.title,
    url: res.url,
    html_truncated: truncated,
    warnings: extracted.warnings,
  };
}

/** 'example.com/a' → 'https://example.com/a'; anything with a scheme is left to the fetcher. */
function withScheme(input: string): string {
  const s = input.trim();
  if (!s) throw new FetchError('invalid_url', 'URL is required');
  const hasScheme = /^[a-z][a-z0-9+.-]*:/i.test(s) && !/^[^/:?#]+:\d+([/?#]|$)/.test(s);
  return hasScheme ? s : `https://${s.replace(/^\/\//, '')}`;
}
