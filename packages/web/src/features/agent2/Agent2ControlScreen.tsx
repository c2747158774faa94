import { useState } from 'react';
import { Button, Grid, Group, Paper, Progress, Slider, Stack, Text, Title } from '@mantine/core';
import { IconPlayerPause, IconPlayerPlay, IconRefresh } from '@tabler/icons-react';
import { PageHeader } from '../../components/PageHeader';
import { CURRENT_BEST_DNA, EVOLUTION_PARAMETERS } from './agent2.samples';

type ParameterKey = (typeof EVOLUTION_PARAMETERS)[number]['key'];

/** Agent 2 Control: static, no calls (spec 000 §2). */
export function Agent2ControlScreen() {
  const [values, setValues] = useState<Record<ParameterKey, number>>(
    () =>
      Object.fromEntries(EVOLUTION_PARAMETERS.map((p) => [p.key, p.value])) as Record<
        ParameterKey,
        number
      >,
  );

  return (
    <Stack gap="lg">
      <PageHeader
        title="Agent 2 Control"
        description="Evolution parameters and generation controls (static demo: nothing is sent)."
      />
      <Grid gap="lg">
        <Grid.Col span={{ base: 12, md: 7 }}>
          <Paper withBorder radius="md" p="lg" h="100%">
            <Title order={4} mb="md">
              Evolution Parameters
            </Title>
            <Stack gap="lg">
              {EVOLUTION_PARAMETERS.map((p) => (
                <div key={p.key}>
                  <Group justify="space-between" mb={6}>
                    <Text size="sm" fw={500}>
                      {p.label}
                    </Text>
                    <Text size="sm" fw={600} className="tabular-nums">
                      {values[p.key].toFixed(2)}
                    </Text>
                  </Group>
                  <Slider
                    min={0}
                    max={1}
                    step={0.01}
                    value={values[p.key]}
                    onChange={(v) => setValues((current) => ({ ...current, [p.key]: v }))}
                    label={(v) => v.toFixed(2)}
                    thumbLabel={p.label}
                    color="violet"
                  />
                </div>
              ))}
              <Group>
                <Button color="violet">Apply Evolution Parameters</Button>
              </Group>
            </Stack>
          </Paper>
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 5 }}>
          <Stack gap="lg">
            <Paper withBorder radius="md" p="lg">
              <Title order={4} mb="md">
                Generation
              </Title>
              <Stack gap="sm">
                <Button leftSection={<IconPlayerPlay size={16} />} color="teal">
                  Start New Generation
                </Button>
                <Button leftSection={<IconPlayerPause size={16} />} variant="default">
                  Pause Evolution
                </Button>
                <Button leftSection={<IconRefresh size={16} />} color="red" variant="light">
                  Reset Population
                </Button>
              </Stack>
            </Paper>
            <Paper withBorder radius="md" p="lg">
              <Title order={4} mb="md">
                Current Best DNA
              </Title>
              <Stack gap="sm" component="ul" style={{ listStyle: 'none', padding: 0, margin: 0 }}>
                {CURRENT_BEST_DNA.map((gene) => (
                  <li key={gene.label}>
                    <Group justify="space-between" mb={4}>
                      <Text size="sm">{gene.label}</Text>
                      <Text size="sm" fw={600} className="tabular-nums">
                        {gene.value.toFixed(2)}
                      </Text>
                    </Group>
                    <Progress
                      value={gene.value * 100}
                      color={gene.color}
                      size="sm"
                      radius="xl"
                      aria-label={gene.label}
                    />
                  </li>
                ))}
              </Stack>
            </Paper>
          </Stack>
        </Grid.Col>
      </Grid>
    </Stack>
  );
}
