import type { ReactNode } from 'react';
import { Group, Paper, SimpleGrid, Text, ThemeIcon, type MantineColor } from '@mantine/core';
import {
  IconArchive,
  IconBabyCarriage,
  IconBrain,
  IconChartLine,
  IconDna2,
  IconFlask,
  IconTarget,
  IconTrophy,
} from '@tabler/icons-react';
import { GENERATION_TICKS, TICK_MS } from '../lab/simulation';
import { formatShare, type LabKpis } from './babiesView';
import { BABIES_MESSAGES as M } from './messages';

function KpiTile({
  label,
  value,
  hint,
  icon,
  color,
}: {
  label: string;
  value: string;
  hint: string;
  icon: ReactNode;
  color: MantineColor;
}) {
  return (
    <Paper withBorder radius="md" p="md" role="group" aria-label={label}>
      <Group justify="space-between" align="flex-start" wrap="nowrap" gap="xs">
        <div style={{ minWidth: 0 }}>
          <Text size="xs" c="dimmed" tt="uppercase" fw={700} lh={1.3}>
            {label}
          </Text>
          <Text fz={26} fw={700} className="tabular-nums" lh={1.25} data-kpi-value>
            {value}
          </Text>
        </div>
        <ThemeIcon size={34} radius="md" variant="light" color={color}>
          {icon}
        </ThemeIcon>
      </Group>
      <Text size="xs" c="dimmed" mt={4} truncate>
        {hint}
      </Text>
    </Paper>
  );
}

/** The eight KPI tiles (spec 001 §2.4): the living population first, the lab's totals after. */
export function KpiTiles({ kpis, running }: { kpis: LabKpis; running: boolean }) {
  const n = (x: number) => x.toLocaleString('fr-FR');
  return (
    <SimpleGrid cols={{ base: 1, xs: 2, md: 4 }} role="region" aria-label={M.kpiRegion}>
      <KpiTile
        label={M.kpiPopulation}
        value={n(kpis.population)}
        hint={M.kpiPopulationHint(kpis.active, kpis.testing)}
        icon={<IconBabyCarriage size={18} />}
        color="violet"
      />
      <KpiTile
        label={M.kpiNextGeneration}
        value={M.kpiNextGenerationValue(kpis.nextGenerationIn / 1000)}
        hint={M.kpiNextGenerationHint((GENERATION_TICKS * TICK_MS) / 1000, running)}
        icon={<IconDna2 size={18} />}
        color="indigo"
      />
      <KpiTile
        label={M.kpiBestFitness}
        value={formatShare(kpis.best?.fitness)}
        hint={kpis.best ? M.kpiBestFitnessHint(kpis.best.id) : '-'}
        icon={<IconTrophy size={18} />}
        color="yellow"
      />
      <KpiTile
        label={M.kpiMeanFitness}
        value={formatShare(kpis.meanFitness)}
        hint={M.kpiMeanFitnessHint}
        icon={<IconChartLine size={18} />}
        color="teal"
      />
      <KpiTile
        label={M.kpiSuccessRate}
        value={formatShare(
          kpis.livingExperiences > 0 ? kpis.livingSuccesses / kpis.livingExperiences : null,
        )}
        hint={M.kpiSuccessRateHint(kpis.livingSuccesses, kpis.livingExperiences)}
        icon={<IconTarget size={18} />}
        color="green"
      />
      <KpiTile
        label={M.kpiExperiences}
        value={n(kpis.experiences)}
        hint={M.kpiExperiencesHint}
        icon={<IconFlask size={18} />}
        color="cyan"
      />
      <KpiTile
        label={M.kpiCapitalized}
        value={n(kpis.capitalized)}
        hint={M.kpiCapitalizedHint}
        icon={<IconBrain size={18} />}
        color="grape"
      />
      <KpiTile
        label={M.kpiArchived}
        value={n(kpis.archived)}
        hint={M.kpiArchivedHint(kpis.born)}
        icon={<IconArchive size={18} />}
        color="gray"
      />
    </SimpleGrid>
  );
}
