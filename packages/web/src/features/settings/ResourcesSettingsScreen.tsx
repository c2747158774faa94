import { useEffect, useState } from 'react';
import { Button, Center, Loader, NumberInput, Stack, Text } from '@mantine/core';
import { IconDeviceFloppy } from '@tabler/icons-react';
import { METRICS_REFRESH_MIN_MS } from '@adam/contracts';
import { isApiError } from '../../api/client';
import { PageHeader } from '../../components/PageHeader';
import { SettingsCard } from '../../components/SettingsCard';
import { toast } from '../../layout/toasts';
import { useSaveSettingsSection, useSettingsSection } from './settings.api';

/**
 * Resources Settings: the metrics refresh interval. The sidebar's metrics poll and the
 * monitoring-realtime tab follow it as soon as it is saved.
 */
export function ResourcesSettingsScreen() {
  const { data, isLoading } = useSettingsSection('resources');
  const save = useSaveSettingsSection('resources');
  const [refreshMs, setRefreshMs] = useState<number | string>('');
  const [error, setError] = useState<string | undefined>();

  useEffect(() => {
    if (data) setRefreshMs(data.metrics_refresh_ms);
  }, [data]);

  if (isLoading) {
    return (
      <Center mih="40vh">
        <Loader />
      </Center>
    );
  }

  const apply = () => {
    const value = typeof refreshMs === 'number' ? refreshMs : Number(refreshMs);
    if (!Number.isFinite(value) || value < METRICS_REFRESH_MIN_MS) {
      setError(`Must be at least ${METRICS_REFRESH_MIN_MS} ms`);
      return;
    }
    setError(undefined);
    save.mutate(
      { metrics_refresh_ms: value },
      {
        onSuccess: (saved) => {
          setRefreshMs(saved.metrics_refresh_ms);
          toast.success('Resources settings saved');
        },
        onError: (e) => setError(isApiError(e) ? e.fieldError('metrics_refresh_ms') : undefined),
      },
    );
  };

  return (
    <Stack gap="lg" maw={640}>
      <PageHeader title="Resources Settings" description="How often system figures refresh." />
      <SettingsCard
        title="Metrics"
        description="Interval of the CPU and memory poll in the sidebar and of real-time monitoring."
      >
        <NumberInput
          label="Metrics Refresh Interval"
          suffix=" ms"
          min={METRICS_REFRESH_MIN_MS}
          step={500}
          allowDecimal={false}
          allowNegative={false}
          clampBehavior="blur"
          thousandSeparator=","
          value={refreshMs}
          onChange={setRefreshMs}
          error={error}
          description={`At least ${METRICS_REFRESH_MIN_MS} ms.`}
          maw={320}
        />
        <Text size="xs" c="dimmed">
          Default 5000 ms.
        </Text>
      </SettingsCard>
      <div>
        <Button
          onClick={apply}
          loading={save.isPending}
          leftSection={<IconDeviceFloppy size={16} />}
        >
          Save Resources Settings
        </Button>
      </div>
    </Stack>
  );
}
