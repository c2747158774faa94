import { describe, expect, it } from 'vitest';
import { EventBus } from '../lib/event-bus.js';
import type { SnippetRepository } from '../store/snippet.repository.js';
import type { IndexService } from './index.service.js';
import { SnippetDeleter } from './snippet-deleter.js';

/** Rows and vectors as id sets; `steps` records each call in order. */
function fakes(rows: number[], vectors: number[]) {
  const inStore = new Set(rows);
  const inIndex = new Set(vectors);
  const steps: string[] = [];
  const events: number[][] = [];
  const bus = new EventBus();
  bus.on('snippets.deleted', (e) => events.push(e.ids));
  const snippets = {
    deleteByIds: (ids: readonly number[]) => {
      steps.push(`rows ${ids.length}`);
      return ids.filter((id) => inStore.delete(id)).length;
    },
  } as unknown as SnippetRepository;
  const index = {
    removeAndSave: (ids: readonly number[]) => {
      steps.push(`vectors ${ids.length}`);
      return ids.filter((id) => inIndex.delete(id));
    },
  } as unknown as IndexService;
  return { deleter: new SnippetDeleter({ snippets, index, bus }), steps, events };
}

const range = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i);

describe('SnippetDeleter', () => {
  it('removes vectors then rows, 500 at a time, and announces every id once', () => {
    const ids = range(1, 1200);
    const { deleter, steps, events } = fakes(ids, range(1, 1000));
    expect(deleter.delete(ids)).toEqual({ snippets_deleted: 1200, vectors_deleted: 1000 });
    expect(steps).toEqual([
      'vectors 500',
      'rows 500',
      'vectors 500',
      'rows 500',
      'vectors 200',
      'rows 200',
    ]);
    expect(events).toEqual([ids]);
  });

  it('announces nothing when none of the ids existed', () => {
    const { deleter, events } = fakes([1], [1]);
    expect(deleter.delete([7])).toEqual({ snippets_deleted: 0, vectors_deleted: 0 });
    expect(deleter.delete([])).toEqual({ snippets_deleted: 0, vectors_deleted: 0 });
    expect(events).toEqual([]);
  });
});
