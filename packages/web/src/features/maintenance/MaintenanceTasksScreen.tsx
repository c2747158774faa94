import { SimpleGrid, Stack } from '@mantine/core';
import { PageHeader } from '../../components/PageHeader';
import { MAINTENANCE_TASKS } from './maintenanceTasks';
import { TaskCard } from './TaskCard';
import { WorkersPanel } from './WorkersPanel';

/**
 * Maintenance Tasks (spec 002 §2, §7): every maintenance action with its thresholds and the
 * result it answered (queued ones followed to their end), and the workers with start / stop.
 */
export function MaintenanceTasksScreen() {
  return (
    <Stack gap="lg">
      <PageHeader
        title="Maintenance Tasks"
        description="Index upkeep, snippet cleanups and job housekeeping."
      />
      <SimpleGrid cols={{ base: 1, md: 2, xl: 3 }}>
        {MAINTENANCE_TASKS.map((task) => (
          <TaskCard key={task.action} task={task} />
        ))}
      </SimpleGrid>
      <WorkersPanel />
    </Stack>
  );
}
