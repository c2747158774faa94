import { AreaChart } from '@mantine/charts';
import { Badge, Paper, SimpleGrid, Stack, Text, Title, Group } from '@mantine/core';
import { IconBabyCarriage, IconBolt, IconBulb, IconDatabase } from '@tabler/icons-react';
import { PageHeader } from '../../components/PageHeader';
import { StatCard } from '../../components/StatCard';
import { AGENT2_STAT_CARDS, EVOLUTION_TIMELINE } from './agent2.samples';

const CARD_ICONS = [
  <IconBabyCarriage key="babies" size={20} />,
  <IconBolt key="rate" size={20} />,
  <IconBulb key="innovation" size={20} />,
  <IconDatabase key="pool" size={20} />,
];

/** Agent 2 Overview: static sample data (spec 000 §2). */
export function Agent2OverviewScreen() {
  return (
    <Stack gap="lg">
      <PageHeader
        title="Agent 2 Overview"
        description="Experience Generator: digital babies, experiences and evolution."
        actions={
          <Badge variant="light" color="gray">
            Sample data
          </Badge>
        }
      />
      <SimpleGrid cols={{ base: 1, sm: 2, lg: 4 }}>
        {AGENT2_STAT_CARDS.map((card, i) => (
          <StatCard
            key={card.title}
            title={card.title}
            value={card.value}
            trend={card.trend}
            trendUp={card.trendUp}
            color={card.color}
            icon={CARD_ICONS[i]}
          />
        ))}
      </SimpleGrid>
      <Paper withBorder radius="md" p="lg">
        <Group justify="space-between" mb="md">
          <div>
            <Title order={4}>Evolution Timeline</Title>
            <Text size="sm" c="dimmed">
              Quality of generated experiences over time
            </Text>
          </div>
        </Group>
        <AreaChart
          h={300}
          data={EVOLUTION_TIMELINE}
          dataKey="time"
          series={[
            { name: 'quality', label: 'Quality', color: 'violet.5' },
            { name: 'innovation', label: 'Innovation', color: 'cyan.5' },
          ]}
          curveType="monotone"
          withLegend
          yAxisProps={{ domain: [0, 1] }}
          valueFormatter={(value) => value.toFixed(2)}
          withGradient
        />
      </Paper>
    </Stack>
  );
}
