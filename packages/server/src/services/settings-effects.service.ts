import type { EventBus } from '../lib/event-bus.js';

/**
 * What a settings section's change sets off beyond the section: a processing change whose
 * index_storage differs from the index's queues the rebuild that converts the index; a quality
 * change makes the search history read its switch again. On 'settings.updated', which a restore
 * sends too (the restored sections may differ from the running ones).
 */
export class SettingsEffects {
  private off: (() => void) | null = null;

  constructor(
    private readonly deps: {
      bus: EventBus;
      /** Queues the index rebuild when the wanted storage is not the index's (else nothing). */
      maintenance: { queueStorageChange(): unknown };
      searchHistory: { settingsChanged(): void };
    },
  ) {}

  start(): void {
    this.off ??= this.deps.bus.on('settings.updated', ({ section }) => this.changed(section));
  }

  stop(): void {
    this.off?.();
    this.off = null;
  }

  private changed(section: string): void {
    if (section === 'processing') this.deps.maintenance.queueStorageChange();
    if (section === 'quality') this.deps.searchHistory.settingsChanged();
  }
}
