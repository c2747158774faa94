import { EventEmitter } from 'node:events';

/** Every state change the console shows live; the WebSocket channel forwards these. */
export interface BusEvents {
  'settings.updated': { section: string };
  'auth.key_revoked': { key_id: number };
  'snippets.added': { ids: number[]; job_id: number | null };
  'snippets.deleted': { ids: number[] };
}

export type BusEventName = keyof BusEvents;

export class EventBus {
  private readonly emitter = new EventEmitter();

  constructor() {
    this.emitter.setMaxListeners(0);
  }

  emit<K extends BusEventName>(type: K, payload: BusEvents[K]): void {
    this.emitter.emit(type, payload);
    this.emitter.emit('*', { type, payload });
  }

  on<K extends BusEventName>(type: K, fn: (payload: BusEvents[K]) => void): () => void {
    this.emitter.on(type, fn);
    return () => this.emitter.off(type, fn);
  }

  onAny(fn: (e: { type: BusEventName; payload: unknown }) => void): () => void {
    this.emitter.on('*', fn);
    return () => this.emitter.off('*', fn);
  }
}
