import { describe, expect, it } from 'vitest';
import { TABS } from '../navigation/tabRegistry';
import { TAB_SCREENS, tabScreen } from './tabs';

describe('tab screens', () => {
  it('binds a screen to every tab of the registry and to nothing else', () => {
    expect(Object.keys(TAB_SCREENS).sort()).toEqual(TABS.map((tab) => tab.id).sort());
    for (const tab of TABS) expect(tabScreen(tab.id)).toBeDefined();
  });

  it('has no screen for an unknown id, even one named like an object property', () => {
    expect(tabScreen('nope')).toBeUndefined();
    expect(tabScreen('constructor')).toBeUndefined();
    expect(tabScreen('__proto__')).toBeUndefined();
  });
});
