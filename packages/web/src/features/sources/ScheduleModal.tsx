import { useEffect, useState } from 'react';
import { Button, Group, Modal, Select, Stack, Text, TextInput } from '@mantine/core';
import { SCHEDULE_MAX_CHARS, SYNC_PRESETS, type Source } from '@adam/contracts';
import { toast } from '../../layout/toasts';
import { isPreset } from './SourceSyncCells';
import { useSetSourceSchedule } from './sources.api';

const CRON = 'cron';

const OPTIONS = [
  ...SYNC_PRESETS.map((p) => ({ value: p, label: p })),
  { value: CRON, label: 'cron expression' },
];

/**
 * A web source's schedule (PUT /sources/{id}/schedule): a preset or a five-field cron expression
 * in UTC. The server checks the expression; its 422 is shown under the input it concerns.
 */
export function ScheduleModal({ source, onClose }: { source: Source | null; onClose: () => void }) {
  const [choice, setChoice] = useState('off');
  const [cron, setCron] = useState('');
  const save = useSetSourceSchedule();

  useEffect(() => {
    if (!source) return;
    setChoice(isPreset(source.schedule) ? source.schedule : CRON);
    setCron(isPreset(source.schedule) ? '' : source.schedule);
    save.reset();
    // Reset when another source is opened, not on every render of the mutation.
  }, [source]);

  const schedule = choice === CRON ? cron.trim() : choice;
  const serverError = save.error?.message;

  const onSave = () => {
    if (!source || schedule === '') return;
    save.mutate(
      { id: source.id, schedule },
      {
        onSuccess: (updated) => {
          toast.success(`Schedule of ${updated.url} set to ${updated.schedule}`);
          onClose();
        },
      },
    );
  };

  return (
    <Modal
      opened={source !== null}
      onClose={onClose}
      title={<Text fw={600}>Sync schedule</Text>}
      centered
    >
      <form
        onSubmit={(e) => {
          e.preventDefault();
          onSave();
        }}
      >
        <Stack gap="sm">
          <Text size="sm" ff="monospace" style={{ wordBreak: 'break-all' }}>
            {source?.url}
          </Text>
          <Select
            label="Schedule"
            data={OPTIONS}
            value={choice}
            onChange={(v) => {
              if (v) setChoice(v);
              save.reset();
            }}
            allowDeselect={false}
            error={choice !== CRON ? serverError : undefined}
          />
          {choice === CRON ? (
            <TextInput
              label="Cron expression"
              description="Five fields, UTC: minute hour day-of-month month day-of-week"
              placeholder="*/30 * * * *"
              ff="monospace"
              value={cron}
              maxLength={SCHEDULE_MAX_CHARS}
              onChange={(e) => {
                setCron(e.currentTarget.value);
                save.reset();
              }}
              error={serverError}
              data-autofocus
            />
          ) : null}
          <Group justify="flex-end" gap="sm" mt="xs">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={save.isPending} disabled={schedule === ''}>
              Save schedule
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
