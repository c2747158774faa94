import { describe, expect, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import {
  AllSettings,
  DEFAULT_GENERAL_SETTINGS,
  DEFAULT_PROCESSING_SETTINGS,
  DEFAULT_RESOURCES_SETTINGS,
  GeneralSettings,
  PROCESSING_BOUNDS,
  ProcessingSettings,
  ResourcesSettings,
  SETTINGS_CHANGE_SCHEMAS,
  SETTINGS_SCHEMAS,
  SETTINGS_SECTIONS,
  SettingsResponse,
  UpdateSettingsRequest,
  type SettingsChange,
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

describe('typed settings sections', () => {
  it('have a schema and a change schema for every section, titled for the OpenAPI document', () => {
    expect(Object.keys(SETTINGS_SCHEMAS).sort()).toEqual([...SETTINGS_SECTIONS].sort());
    expect(Object.keys(SETTINGS_CHANGE_SCHEMAS).sort()).toEqual([...SETTINGS_SECTIONS].sort());
    for (const section of SETTINGS_SECTIONS) {
      expect(SETTINGS_SCHEMAS[section].meta()?.title).toMatch(/^[A-Z][A-Za-z]+Settings$/);
      expect(SETTINGS_CHANGE_SCHEMAS[section].meta()?.title).toBe(
        `${SETTINGS_SCHEMAS[section].meta()?.title}Change`,
      );
    }
  });

  it('accept any subset of a section with valid values, and refuse a bad or foreign field', () => {
    const processing = SETTINGS_CHANGE_SCHEMAS.processing;
    expect(processing.safeParse({}).success).toBe(true);
    expect(processing.safeParse({ embedding_batch_size: 64 }).success).toBe(true);
    const low = processing.safeParse({ embedding_batch_size: 0 });
    expect(low.error?.issues).toEqual([
      expect.objectContaining({ path: ['embedding_batch_size'], message: 'must be at least 1' }),
    ]);
    const foreign = processing.safeParse({ api_title: 'x' });
    expect(foreign.error?.issues[0]).toMatchObject({
      code: 'unrecognized_keys',
      keys: ['api_title'],
    });
    // The cross-field rules wait for the merged section: a half change cannot be judged alone.
    expect(processing.safeParse({ segment_min_length: 600 }).success).toBe(true);
    expect(SETTINGS_CHANGE_SCHEMAS.uploads.safeParse({ max_files: 0 }).success).toBe(false);
  });

  it('type a change as a partial section', () => {
    expectTypeOf<SettingsChange<'general'>>().toEqualTypeOf<
      z.infer<typeof SETTINGS_CHANGE_SCHEMAS.general>
    >();
    expectTypeOf<SettingsChange<'processing'>>().toEqualTypeOf<
      z.infer<typeof SETTINGS_CHANGE_SCHEMAS.processing>
    >();
    expectTypeOf<SettingsChange<'uploads'>>().toEqualTypeOf<
      z.infer<typeof SETTINGS_CHANGE_SCHEMAS.uploads>
    >();
    expectTypeOf<SettingsChange<'quality'>>().toEqualTypeOf<Partial<AllSettings['quality']>>();
  });

  it('answer one section as exactly that section (the response union)', () => {
    const general = SettingsResponse.parse(DEFAULT_GENERAL_SETTINGS);
    expect(general).toEqual(DEFAULT_GENERAL_SETTINGS);
    expect(SettingsResponse.safeParse({ ...DEFAULT_RESOURCES_SETTINGS, extra: 1 }).success).toBe(
      false,
    );
  });

  it('take a PUT body of a known section name and one section of fields', () => {
    expect(
      UpdateSettingsRequest.safeParse({ section: 'general', settings: { auto_backup: false } })
        .success,
    ).toBe(true);
    expect(UpdateSettingsRequest.safeParse({ section: 'nope', settings: {} }).success).toBe(false);
    // Fields of two sections at once fit no section.
    expect(
      UpdateSettingsRequest.safeParse({
        settings: { auto_backup: false, metrics_refresh_ms: 2000 },
      }).success,
    ).toBe(false);
    expect(UpdateSettingsRequest.safeParse({}).success).toBe(false);
  });
});
