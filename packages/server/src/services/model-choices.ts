/**
 * The models the processing settings name, read from the registry's rows: the active embedding
 * model, whether a named embedding model or reranker can be chosen, and where an installed
 * reranker's files are. Reads only (no catalogue, no jobs): the settings ask it while the
 * server is being built, before the registry exists.
 */
import path from 'node:path';
import type { ModelRepository } from '../store/model.repository.js';
import { dirOf, INSTALLED, spaceIdOf, statusText } from './model-rows.js';

export class ModelChoices {
  constructor(
    private readonly deps: {
      models: ModelRepository;
      /** `<dataDir>/models`. */
      modelsRoot: string;
      /** The embedding space the engine embeds with now (engine.id). */
      activeSpace: () => string;
    },
  ) {}

  /** The processing settings' embedding_model: the active embedding model's name. */
  activeEmbeddingName(): string {
    const space = this.deps.activeSpace();
    const row = this.deps.models.embeddingSpaces().find((r) => spaceIdOf(r) === space);
    return row?.name ?? space;
  }

  /** Why the embedding model named `name` cannot be activated, or null. */
  embeddingProblem(name: string): string | null {
    const row = this.deps.models.list().find((r) => r.type === 'embedding' && r.name === name);
    if (!row) return `${name} is not an embedding model of the registry`;
    if (!INSTALLED.includes(row.status)) {
      return `${name} is ${statusText(row.status)}: install it first (Model Management)`;
    }
    return null;
  }

  /**
   * The installed reranker model named `name`, with its absolute directory; null when there is
   * none (no such model, another type, or not installed).
   */
  reranker(name: string): { name: string; dir: string } | null {
    const row = this.deps.models.list().find((r) => r.type === 'reranker' && r.name === name);
    const dir = row && INSTALLED.includes(row.status) ? dirOf(row) : null;
    return row && dir
      ? { name: row.name, dir: path.join(this.deps.modelsRoot, ...dir.split('/')) }
      : null;
  }

  /** Why the processing settings' reranker_model cannot be `name`, or null ('' is none). */
  rerankerProblem(name: string): string | null {
    if (name === '') return null;
    const row = this.deps.models.list().find((r) => r.name === name);
    if (!row) return `${name} is not a model of the registry`;
    if (row.type !== 'reranker') return `${name} is a model of type ${row.type}, not a reranker`;
    if (!INSTALLED.includes(row.status)) {
      return `${name} is ${statusText(row.status)}: install it first (Model Management)`;
    }
    return null;
  }
}
