import { describe, expect, it } from 'vitest';
import { EventBus } from '../lib/event-bus.js';
import { SettingsEffects } from './settings-effects.service.js';

function setup() {
  const bus = new EventBus();
  const calls: string[] = [];
  const effects = new SettingsEffects({
    bus,
    maintenance: { queueStorageChange: () => calls.push('rebuild') },
    searchHistory: { settingsChanged: () => calls.push('history') },
  });
  return { bus, calls, effects };
}

describe('SettingsEffects', () => {
  it('queues the storage rebuild on a processing change and re-reads the history switch on a quality one', () => {
    const { bus, calls, effects } = setup();
    effects.start();
    bus.emit('settings.updated', { section: 'processing' });
    bus.emit('settings.updated', { section: 'quality' });
    bus.emit('settings.updated', { section: 'general' });
    expect(calls).toEqual(['rebuild', 'history']);
  });

  it('listens once however often it is started, and no more once stopped', () => {
    const { bus, calls, effects } = setup();
    effects.start();
    effects.start();
    bus.emit('settings.updated', { section: 'processing' });
    effects.stop();
    bus.emit('settings.updated', { section: 'processing' });
    expect(calls).toEqual(['rebuild']);
  });
});
