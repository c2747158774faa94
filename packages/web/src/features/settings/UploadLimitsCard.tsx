import { Button, Center, Loader, NumberInput, SimpleGrid, Stack, Text } from '@mantine/core';
import { IconDeviceFloppy } from '@tabler/icons-react';
import { DEFAULT_UPLOAD_SETTINGS, UPLOAD_LIMITS, UPLOAD_SETTINGS_BOUNDS } from '@adam/contracts';
import { SettingsCard } from '../../components/SettingsCard';
import { useSectionForm, wholeNumberProps } from './useSectionForm';

const D = DEFAULT_UPLOAD_SETTINGS;
const n = (v: number) => v.toLocaleString('en');

/**
 * The `uploads` settings section: the limits of Add Sources, Upload files. The server reads
 * them at each upload, so a saved change applies to the next one.
 */
export function UploadLimitsCard() {
  const { form, errors, set, submit, saving, loading } = useSectionForm(
    'uploads',
    'Upload limits saved',
  );
  const B = UPLOAD_SETTINGS_BOUNDS;

  return (
    <SettingsCard
      title="Upload Limits"
      description="Checked as the bytes arrive: an upload past a limit is refused and nothing of it is kept. A change applies to the next upload."
    >
      {loading ? (
        <Center py="md">
          <Loader size="sm" />
        </Center>
      ) : !form ? (
        <Text c="dimmed" size="sm">
          The upload limits could not be loaded.
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
            {/* One-line descriptions keep the three inputs on one baseline. */}
            <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="md" verticalSpacing="md">
              <NumberInput
                label="Max File Size"
                description={`One file, ${n(B.max_file_mib.min)} to ${n(B.max_file_mib.max)} MiB.`}
                suffix=" MiB"
                {...wholeNumberProps(B.max_file_mib)}
                value={form.max_file_mib}
                onChange={(v) => set('max_file_mib', v)}
                error={errors.max_file_mib}
              />
              <NumberInput
                label="Max Files per Upload"
                description={`${n(B.max_files.min)} to ${n(B.max_files.max)}.`}
                {...wholeNumberProps(B.max_files)}
                value={form.max_files}
                onChange={(v) => set('max_files', v)}
                error={errors.max_files}
              />
              <NumberInput
                label="Max Upload Size"
                description={`All files together, up to ${n(B.max_total_mib.max)} MiB.`}
                suffix=" MiB"
                {...wholeNumberProps(B.max_total_mib)}
                value={form.max_total_mib}
                onChange={(v) => set('max_total_mib', v)}
                error={errors.max_total_mib}
              />
            </SimpleGrid>
            <Text size="xs" c="dimmed">
              Defaults: {n(D.max_file_mib)} MiB a file, {n(D.max_files)} files, {n(D.max_total_mib)}{' '}
              MiB in all. A PDF is also held to {n(UPLOAD_LIMITS.max_pages)} pages.
            </Text>
            <div>
              <Button type="submit" loading={saving} leftSection={<IconDeviceFloppy size={16} />}>
                Save Upload Limits
              </Button>
            </div>
          </Stack>
        </form>
      )}
    </SettingsCard>
  );
}
