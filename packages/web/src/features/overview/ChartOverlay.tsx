import type { ReactNode } from 'react';
import { Center, Text } from '@mantine/core';

/** A note centred over an empty chart, so the chart keeps its height and axes. */
export function ChartOverlay({ children }: { children: ReactNode }) {
  return (
    <Center pos="absolute" inset={0} style={{ pointerEvents: 'none' }}>
      <Text size="sm" c="dimmed" bg="var(--mantine-color-body)" px="sm" py={4}>
        {children}
      </Text>
    </Center>
  );
}
