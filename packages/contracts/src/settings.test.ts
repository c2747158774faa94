import { describe, expect, it } from 'vitest';
import {
  DEFAULT_GENERAL_SETTINGS,
  DEFAULT_PROCESSING_SETTINGS,
  DEFAULT_RESOURCES_SETTINGS,
  GeneralSettings,
  PROCESSING_BOUNDS,
  ProcessingSettings,
  ResourcesSettings,
} from './settings.js';

describe('settings schemas', () => {
  it('accept their own defaults', () => {
    expect(ProcessingSettings.parse(DEFAULT_PROCESSING_SETTINGS)).toEqual(
      DEFAULT_PROCESSING_SETTINGS,
    );
    expect(ResourcesSettings.parse(DEFAULT_RESOURCES_SETTINGS)).toEqual(DEFAULT_RESOURCES_SETTINGS);
    expect(GeneralSettings.parse(DEFAULT_GENERAL_SETTINGS)).toEqual(DEFAULT_GENERAL_SETTINGS);
  });

  it('enforce every bound the form shows', () => {
    for (const [field, b] of Object.entries(PROCESSING_BOUNDS)) {
      const below = {
        ...DEFAULT_PROCESSING_SETTINGS,
        [field]: b.min - (('step' in b && b.step) || 1),
      };
      expect(ProcessingSettings.safeParse(below).success, `${field} below ${b.min}`).toBe(false);
      expect(
        ProcessingSettings.safeParse({ ...DEFAULT_PROCESSING_SETTINGS, [field]: b.min }).success,
      ).toBe(field === 'segment_max_length' ? false : true);
      if ('max' in b) {
        const above = { ...DEFAULT_PROCESSING_SETTINGS, [field]: b.max + 1 };
        expect(ProcessingSettings.safeParse(above).success, `${field} above ${b.max}`).toBe(false);
      }
    }
  });

  it('refuse unknown fields', () => {
    expect(ProcessingSettings.safeParse({ ...DEFAULT_PROCESSING_SETTINGS, extra: 1 }).success).toBe(
      false,
    );
  });
});
