import {
  DEFAULT_CRAWLER_SETTINGS,
  DEFAULT_GENERAL_SETTINGS,
  DEFAULT_PROCESSING_SETTINGS,
  DEFAULT_QUALITY_SETTINGS,
  DEFAULT_RESOURCES_SETTINGS,
  DEFAULT_SECURITY_SETTINGS,
  DEFAULT_UPLOAD_SETTINGS,
  SETTINGS_SCHEMAS,
  SETTINGS_SECTIONS,
  type AllSettings,
  type SettingsSection,
} from '@adam/contracts';
import {
  NotFound,
  Unprocessable,
  describeFieldErrors,
  fieldErrorsFromIssues,
} from '../lib/errors.js';
import type { Logger } from '../logging.js';
import type { EventBus } from '../lib/event-bus.js';
import type { SettingsRepository } from '../store/settings.repository.js';

const DEFAULTS: AllSettings = {
  general: DEFAULT_GENERAL_SETTINGS,
  processing: DEFAULT_PROCESSING_SETTINGS,
  resources: DEFAULT_RESOURCES_SETTINGS,
  crawler: DEFAULT_CRAWLER_SETTINGS,
  uploads: DEFAULT_UPLOAD_SETTINGS,
  security: DEFAULT_SECURITY_SETTINGS,
  quality: DEFAULT_QUALITY_SETTINGS,
};

/**
 * The processing section's embedding_model is the registry's active embedding model, not a
 * stored value: reading gives the active one, saving another one activates it.
 */
export interface EmbeddingModelChoice {
  /** The active embedding model's name. */
  active(): string;
  /** Why `name` cannot become the active model, or null when it can. */
  problem(name: string): string | null;
  /** Makes `name` the active model (queues the re-embedding). */
  activate(name: string): void;
}

export class SettingsService {
  private embeddingModel: EmbeddingModelChoice | null = null;
  /** Why a processing reranker_model cannot be that name (the registry's check), or null. */
  private rerankerProblem: ((name: string) => string | null) | null = null;

  constructor(
    private readonly deps: { settings: SettingsRepository; bus: EventBus; log: Logger },
  ) {}

  /** Bound once the model registry exists (it is built after the settings). */
  bindEmbeddingModel(choice: EmbeddingModelChoice): void {
    this.embeddingModel = choice;
  }

  /** Bound once the model registry exists: reranker_model must name an installed reranker. */
  bindRerankerModel(problem: (name: string) => string | null): void {
    this.rerankerProblem = problem;
  }

  section(name: string): SettingsSection {
    if (!(SETTINGS_SECTIONS as readonly string[]).includes(name)) {
      throw new NotFound('settings section', name);
    }
    return name as SettingsSection;
  }

  get<S extends SettingsSection>(section: S): AllSettings[S] {
    const stored = this.deps.settings.findSection(section) ?? {};
    // Stored values over defaults: a setting added in a later version gets its default.
    const merged = { ...DEFAULTS[section], ...stored };
    const parsed = SETTINGS_SCHEMAS[section].safeParse(merged);
    const value = (parsed.success ? parsed.data : DEFAULTS[section]) as AllSettings[S];
    if (section === 'processing' && this.embeddingModel) {
      return { ...value, embedding_model: this.embeddingModel.active() };
    }
    return value;
  }

  getAll(): AllSettings {
    return {
      general: this.get('general'),
      processing: this.get('processing'),
      resources: this.get('resources'),
      crawler: this.get('crawler'),
      uploads: this.get('uploads'),
      security: this.get('security'),
      quality: this.get('quality'),
    };
  }

  /** Validates the whole section after merging the change; nothing is saved on error. */
  update<S extends SettingsSection>(section: S, change: Record<string, unknown>): AllSettings[S] {
    const next = { ...this.get(section), ...change };
    const parsed = SETTINGS_SCHEMAS[section].safeParse(next);
    if (!parsed.success) {
      const errors = fieldErrorsFromIssues(parsed.error.issues);
      throw new Unprocessable(
        `Invalid ${section} settings: ${describeFieldErrors(errors)}`,
        errors,
      );
    }
    const choice = section === 'processing' ? this.embeddingModel : null;
    const model = (parsed.data as Partial<AllSettings['processing']>).embedding_model;
    const activate = choice && model !== undefined && model !== choice.active() ? model : null;
    const problem = activate === null ? null : choice!.problem(activate);
    // Checked when the change names a reranker or turns the stage on: a model uninstalled
    // since does not block a save of other fields.
    const reranker =
      section === 'processing' && ('reranker_model' in change || 'rerank_enabled' in change)
        ? (parsed.data as AllSettings['processing']).reranker_model
        : '';
    const rerankerProblem = reranker === '' ? null : (this.rerankerProblem?.(reranker) ?? null);
    if (rerankerProblem !== null) {
      const errors = [{ field: 'reranker_model', message: rerankerProblem }];
      throw new Unprocessable(
        `Invalid ${section} settings: ${describeFieldErrors(errors)}`,
        errors,
      );
    }
    if (problem !== null) {
      const errors = [{ field: 'embedding_model', message: problem }];
      throw new Unprocessable(
        `Invalid ${section} settings: ${describeFieldErrors(errors)}`,
        errors,
      );
    }
    // First: a refused activation (a switch already running) saves nothing.
    if (activate !== null) choice!.activate(activate);
    this.deps.settings.upsertSection(section, parsed.data);
    this.deps.log.info({ component: 'settings' }, `Settings section ${section} updated`);
    this.deps.bus.emit('settings.updated', { section });
    this.deps.bus.emit('settings.saved', { section });
    return parsed.data as AllSettings[S];
  }
}
