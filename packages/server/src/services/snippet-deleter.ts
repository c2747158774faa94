import type { EventBus } from '../lib/event-bus.js';
import type { SnippetRepository } from '../store/snippet.repository.js';
import type { IndexWrites } from './index.service.js';

/** Ids per store transaction: a worker process writing meanwhile waits on one, not on all. */
const DELETE_CHUNK = 500;

interface SnippetsDeleted {
  snippets_deleted: number;
  vectors_deleted: number;
}

/**
 * Deletes snippets everywhere they live: vectors, rows (with what the rows' triggers keep), and
 * one `snippets.deleted` event. The one way snippets are deleted, whatever asks for it.
 */
export class SnippetDeleter {
  constructor(
    private readonly deps: {
      snippets: SnippetRepository;
      index: Pick<IndexWrites, 'removeAndSave'>;
      bus: EventBus;
    },
  ) {}

  delete(ids: readonly number[]): SnippetsDeleted {
    let snippets = 0;
    let vectors = 0;
    // Vectors before rows: a search in between never finds a vector whose row is gone.
    for (let i = 0; i < ids.length; i += DELETE_CHUNK) {
      const chunk = ids.slice(i, i + DELETE_CHUNK);
      vectors += this.deps.index.removeAndSave(chunk).length;
      snippets += this.deps.snippets.deleteByIds(chunk);
    }
    // Nothing removed, nothing announced: a delete of an unknown id is no activity.
    if (snippets || vectors) this.deps.bus.emit('snippets.deleted', { ids: [...ids] });
    return { snippets_deleted: snippets, vectors_deleted: vectors };
  }
}
