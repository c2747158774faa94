import type { ReactNode } from 'react';
import {
  Button,
  Center,
  Loader,
  NumberInput,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
} from '@mantine/core';
import { IconDeviceFloppy } from '@tabler/icons-react';
import type { SectionSettings, SettingsSection } from '@adam/contracts';
import { SettingsCard } from '../../components/SettingsCard';
import { useSectionForm, wholeNumberProps, type SectionForm } from './useSectionForm';

type FieldOf<T, V> = { [K in keyof T]: T[K] extends V ? K : never }[keyof T] & string;

/** A text field of a section, above its number fields. */
export interface SectionTextField<T> {
  field: FieldOf<T, string>;
  label: string;
  description: string;
  maxLength: number;
}

/** A whole-number field of a section, held to its bounds. */
export interface SectionNumberField<T> {
  field: FieldOf<T, number>;
  label: string;
  description: string;
  bounds: { min: number; max: number };
  suffix?: string;
}

/**
 * One settings section shown as a card with its own save (see useSectionForm): its text fields,
 * a row of number fields, the defaults line and the save button. A section's card declares these.
 */
export function SectionCard<S extends SettingsSection>({
  section,
  title,
  description,
  failedText,
  savedText,
  saveLabel,
  textFields = [],
  numberFields,
  defaults,
}: {
  section: S;
  title: string;
  description: string;
  /** Shown in place of the form when the section could not be loaded. */
  failedText: string;
  /** The toast after a save. */
  savedText: string;
  saveLabel: string;
  textFields?: SectionTextField<SectionSettings<S>>[];
  numberFields: SectionNumberField<SectionSettings<S>>[];
  defaults: ReactNode;
}) {
  type T = SectionSettings<S>;
  const { form, errors, set, submit, saving, loading } = useSectionForm(section, savedText);
  // The declared fields are T's text and number fields; read back with their input's type.
  const textOf = (f: SectionForm<T>, field: keyof T & string): string => {
    const value: unknown = f[field];
    return typeof value === 'string' ? value : '';
  };
  const numberOf = (f: SectionForm<T>, field: keyof T & string): number | string => {
    const value: unknown = f[field];
    return typeof value === 'number' || typeof value === 'string' ? value : '';
  };
  // A text input gives text and a number input a number or text: the field's own form value.
  const setField = set as (field: keyof T & string, value: string | number) => void;

  return (
    <SettingsCard title={title} description={description}>
      {loading ? (
        <Center py="md">
          <Loader size="sm" />
        </Center>
      ) : !form ? (
        <Text c="dimmed" size="sm">
          {failedText}
        </Text>
      ) : (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            submit();
          }}
          noValidate
        >
          <Stack gap="md">
            {textFields.map((t) => (
              <TextInput
                key={t.field}
                label={t.label}
                description={t.description}
                value={textOf(form, t.field)}
                onChange={(e) => setField(t.field, e.currentTarget.value)}
                error={errors[t.field]}
                maxLength={t.maxLength}
              />
            ))}
            {/* One-line descriptions keep the inputs of the row on one baseline. */}
            <SimpleGrid
              cols={{ base: 1, sm: numberFields.length }}
              spacing="md"
              verticalSpacing="md"
            >
              {numberFields.map((n) => (
                <NumberInput
                  key={n.field}
                  label={n.label}
                  description={n.description}
                  suffix={n.suffix}
                  {...wholeNumberProps(n.bounds)}
                  value={numberOf(form, n.field)}
                  onChange={(v) => setField(n.field, v)}
                  error={errors[n.field]}
                />
              ))}
            </SimpleGrid>
            <Text size="xs" c="dimmed">
              {defaults}
            </Text>
            <div>
              <Button type="submit" loading={saving} leftSection={<IconDeviceFloppy size={16} />}>
                {saveLabel}
              </Button>
            </div>
          </Stack>
        </form>
      )}
    </SettingsCard>
  );
}
