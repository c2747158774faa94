import {
  MODEL_LANGUAGES,
  ARTICLE_MAX_BYTES,
  type AnalyzeResponse,
  type FetchUrlResponse,
  type FetchWikipediaResponse,
  type PlaygroundLanguage,
  type SaveSegmentsResponse,
} from '@adam/contracts';
import type { Engine } from '../engine/engine.js';
import type { EventBus } from '../lib/event-bus.js';
import { BadRequest, PayloadTooLarge } from '../lib/errors.js';
import type { EncyclopediaClient } from '../scraping/wikipedia.js';
import type { SafeFetcher } from '../scraping/safe-fetcher.js';
import { fetchUrl } from '../scraping/url-fetch.js';
import type { JobService } from './job.service.js';
import type { RuleService } from './rule.service.js';
import type { SettingsService } from './settings.service.js';

/** The languages the pipeline detects and splits; en, fr, es and de have the full pipeline. */
const PLAYGROUND_LANGUAGES: PlaygroundLanguage[] = [
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

const SAVE_WAIT_MS = 120_000;

export class PlaygroundService {
  constructor(
    private readonly deps: {
      engine: Engine;
      jobs: JobService;
      settings: SettingsService;
      rules: RuleService;
      fetcher: SafeFetcher;
      encyclopedia: EncyclopediaClient;
      bus: EventBus;
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
    const warning = packWarning(r.language, this.deps.engine.languagePacks);
    if (warning) this.deps.bus.emit('model_warning', { message: warning });
    return { answers: r.answers, entities: r.entities, language: r.language };
  }

  async fetchUrl(url: string, ruleId?: number | null): Promise<FetchUrlResponse> {
    return fetchUrl(
      this.deps.fetcher,
      url,
      this.deps.rules.forMatching(),
      ruleId ?? null,
      (res, rule) => this.deps.engine.extract(res, rule),
    );
  }

  /**
   * Saves an article's text as snippets through a save_segments job; answers at once with the
   * job id (its progress and result come as events), or with the result when `wait` is set.
   */
  async saveSegments(req: {
    title: string;
    language: string;
    text: string;
    source_url?: string | null;
    wait: boolean;
    priority: 'high' | 'normal' | 'low';
  }): Promise<SaveSegmentsResponse> {
    if (!req.text.trim()) throw new BadRequest('Article text is empty');
    if (Buffer.byteLength(req.text, 'utf8') > ARTICLE_MAX_BYTES) {
      throw new PayloadTooLarge('Article text exceeds 100 kB');
    }
    let job = this.deps.jobs.create({
      type: 'save_segments',
      priority: req.priority,
      input: {
        title: req.title,
        language: req.language || 'en',
        text: req.text,
        source_url: req.source_url ?? null,
      },
      metadata: { title: req.title, bytes: Buffer.byteLength(req.text, 'utf8') },
    });
    if (req.wait) job = await this.deps.jobs.waitForEnd(job.id, SAVE_WAIT_MS);
    const result = (job.metadata.result ?? null) as {
      snippet_ids: number[];
      duplicates: number;
      diagnostics: NonNullable<SaveSegmentsResponse['diagnostics']>;
    } | null;
    return {
      job_id: job.id,
      status: job.status,
      segments_created: job.stats.segments_created ?? 0,
      duplicates: result?.duplicates ?? 0,
      snippet_ids: result?.snippet_ids ?? [],
      diagnostics: result?.diagnostics ?? null,
    };
  }

  async fetchWikipedia(title: string, language: string): Promise<FetchWikipediaResponse> {
    const a = await this.deps.encyclopedia.fetchArticle(title, language);
    return { text: a.text, title: a.title, url: a.url, language: a.language };
  }
}

/**
 * The playground's banner line when the text's language has no language pack: its entities
 * then come from the built-in rules (date patterns and capitalised runs).
 */
function packWarning(language: string, packs: Readonly<Record<string, string>>): string | null {
  const known = MODEL_LANGUAGES.find((l) => l.code === language);
  // English has the built-in pipeline (compromise) even without a pack.
  if (!known || language === 'en' || packs[language]) return null;
  return `No ${known.name} language pack is installed: entities come from the built-in rules. Install the ${known.name} language pack in Model Management for model-based entities.`;
}
