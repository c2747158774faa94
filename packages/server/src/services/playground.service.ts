import {
  ARTICLE_MAX_BYTES,
  type AnalyzeResponse,
  type FetchUrlResponse,
  type FetchWikipediaResponse,
  type PlaygroundLanguage,
  type SaveSegmentsResponse,
} from '@adam/contracts';
import type { Engine } from '../engine/engine.js';
import { BadRequest, PayloadTooLarge } from '../lib/errors.js';
import type { EncyclopediaClient } from '../scraping/wikipedia.js';
import type { SafeFetcher } from '../scraping/safe-fetcher.js';
import { fetchUrl } from '../scraping/url-fetch.js';
import type { IngestionService } from './ingestion.service.js';
import type { RuleService } from './rule.service.js';
import type { SettingsService } from './settings.service.js';

/** The languages the pipeline detects and splits; en, fr, es and de have the full pipeline. */
export const PLAYGROUND_LANGUAGES: PlaygroundLanguage[] = [
  { code: 'en', name: 'English' },
  { code: 'fr', name: 'French' },
  { code: 'es', name: 'Spanish' },
  { code: 'de', name: 'German' },
  { code: 'it', name: 'Italian' },
  { code: 'pt', name: 'Portuguese' },
  { code: 'nl', name: 'Dutch' },
  { code: 'ru', name: 'Russian' },
  { code: 'ja', name: 'Japanese' },
  { code: 'zh', name: 'Chinese' },
];

export class PlaygroundService {
  constructor(
    private readonly deps: {
      engine: Engine;
      ingestion: IngestionService;
      settings: SettingsService;
      rules: RuleService;
      fetcher: SafeFetcher;
      encyclopedia: EncyclopediaClient;
    },
  ) {}

  languages(): PlaygroundLanguage[] {
    return PLAYGROUND_LANGUAGES;
  }

  /** The context's sentences ranked by closeness to the question, and its named entities. */
  async analyze(req: {
    context?: string;
    text?: string;
    question: string;
    top_k: number;
    language?: string | null;
  }): Promise<AnalyzeResponse> {
    const context = (req.context ?? req.text ?? '').trim();
    const r = await this.deps.engine.rank(context, req.question, req.language || 'auto', req.top_k);
    return { answers: r.answers, entities: r.entities, language: r.language };
  }

  async fetchUrl(url: string, ruleId?: number | null): Promise<FetchUrlResponse> {
    return fetchUrl(this.deps.fetcher, url, this.deps.rules.forMatching(), ruleId ?? null);
  }

  /**
   * Saves an article's text as snippets. Runs inline for now and answers job_id null; the jobs
   * issue moves it onto a save_segments job (TODO(#4)).
   */
  async saveSegments(req: {
    title: string;
    language: string;
    text: string;
    source_url?: string | null;
  }): Promise<SaveSegmentsResponse> {
    if (!req.text.trim()) throw new BadRequest('Article text is empty');
    if (Buffer.byteLength(req.text, 'utf8') > ARTICLE_MAX_BYTES) {
      throw new PayloadTooLarge('Article text exceeds 100 kB');
    }
    const result = await this.deps.ingestion.ingest(
      {
        text: req.text,
        language: req.language || 'en',
        source: { title: req.title || null, url: req.source_url ?? null },
      },
      this.deps.settings.get('processing'),
    );
    return {
      job_id: null,
      segments_created: result.segments_created,
      duplicates: result.duplicates,
      snippet_ids: result.snippet_ids,
      diagnostics: {
        method: result.method,
        fallback_reason: result.fallback_reason,
        language: result.language,
        counts: result.counts,
        items: result.diagnostics.map((d) => ({
          snippet: d.snippet,
          score: d.score,
          status: d.status,
          reason: d.reason,
        })),
      },
    };
  }

  async fetchWikipedia(title: string, language: string): Promise<FetchWikipediaResponse> {
    const a = await this.deps.encyclopedia.fetchArticle(title, language);
    return { text: a.text, title: a.title, url: a.url, language: a.language };
  }
}
