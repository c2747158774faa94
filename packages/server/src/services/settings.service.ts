import {
  DEFAULT_CRAWLER_SETTINGS,
  DEFAULT_GENERAL_SETTINGS,
  DEFAULT_PROCESSING_SETTINGS,
  DEFAULT_QUALITY_SETTINGS,
  DEFAULT_RESOURCES_SETTINGS,
  DEFAULT_SECURITY_SETTINGS,
  DEFAULT_UPLOAD_SETTINGS,
  SETTINGS_CHANGE_SCHEMAS,
  SETTINGS_SCHEMAS,
  SETTINGS_SECTIONS,
  type AllSettings,
  type SettingsChange,
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

/** What the processing settings ask of the model registry (the server's; the CLI has none). */
export interface SettingsModelChecks {
  embedding: EmbeddingModelChoice;
  /** Why reranker_model cannot be `name` (it must name an installed reranker), or null. */
  rerankerProblem(name: string): string | null;
}

export class SettingsService {
  private readonly embeddingModel: EmbeddingModelChoice | null;
  /** Why a processing reranker_model cannot be that name (the registry's check), or null. */
  private readonly rerankerProblem: ((name: string) => string | null) | null;
  /** Each section's last parse, with the stored text it came from. */
  private readonly parsed = new Map<SettingsSection, { text: string | undefined; value: object }>();

  constructor(
    private readonly deps: {
      settings: SettingsRepository;
      bus: EventBus;
      log: Logger;
      /** Without it (the CLI), embedding_model and reranker_model are stored values, unchecked. */
      models?: SettingsModelChecks;
    },
  ) {
    const models = deps.models;
    this.embeddingModel = models?.embedding ?? null;
    this.rerankerProblem = models ? (name) => models.rerankerProblem(name) : null;
  }

  section(name: string): SettingsSection {
    if (!(SETTINGS_SECTIONS as readonly string[]).includes(name)) {
      throw new NotFound('settings section', name);
    }
    return name as SettingsSection;
  }

  get<S extends SettingsSection>(section: S): AllSettings[S] {
    const value = { ...this.stored(section) };
    if (section === 'processing' && this.embeddingModel) {
      return { ...value, embedding_model: this.embeddingModel.active() };
    }
    return value;
  }

  /**
   * The section as stored, over its defaults and checked: read on every search and every job
   * result, so the parse and the check are kept for as long as the stored text is the same (the
   * row is read each time: another process — a worker, the CLI, a restore — may have saved).
   */
  private stored<S extends SettingsSection>(section: S): AllSettings[S] {
    const text = this.deps.settings.findSectionText(section);
    const kept = this.parsed.get(section);
    if (kept && kept.text === text) return kept.value as AllSettings[S];
    const stored = text === undefined ? {} : (JSON.parse(text) as Record<string, unknown>);
    // Stored values over defaults: a setting added in a later version gets its default.
    const merged = { ...DEFAULTS[section], ...stored };
    const parsed = SETTINGS_SCHEMAS[section].safeParse(merged);
    const value = (parsed.success ? parsed.data : DEFAULTS[section]) as AllSettings[S];
    this.parsed.set(section, { text, value: Object.freeze(value) });
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

  /**
   * A save's fields checked against the section's own schema: a 422 naming each bad or unknown
   * field (a schema of all sections at once could only say the object is invalid).
   */
  change<S extends SettingsSection>(section: S, fields: unknown): SettingsChange<S> {
    const parsed = SETTINGS_CHANGE_SCHEMAS[section].safeParse(fields);
    if (!parsed.success) {
      const errors = fieldErrorsFromIssues(parsed.error.issues);
      throw new Unprocessable(
        `Invalid ${section} settings: ${describeFieldErrors(errors)}`,
        errors,
      );
    }
    return parsed.data as SettingsChange<S>;
  }

  /** Validates the whole section after merging the change; nothing is saved on error. */
  update<S extends SettingsSection>(section: S, change: SettingsChange<S>): AllSettings[S] {
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
