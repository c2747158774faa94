import { memo, useMemo, type KeyboardEvent } from 'react';
import { Box, Text } from '@mantine/core';
import { useElementSize } from '@mantine/hooks';
import { NETWORK_VIEW_MAX, networkBabies } from '../lab/simulation';
import type { DigitalBaby } from '../lab/types';
import { formatShare, networkLayout } from './babiesView';
import { BABIES_MESSAGES as M, STATUS_LABELS } from './messages';

/** Before the first measure (and in jsdom, which lays nothing out). */
export const DEFAULT_WIDTH = 960;
const HEIGHT = 440;

/** Enter or space acts like a click on an SVG node, as on a button. */
export function onActivate(action: () => void) {
  return (e: KeyboardEvent) => {
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      action();
    }
  };
}

/**
 * The neural-network view: at most NETWORK_VIEW_MAX babies (the fittest), a column per
 * generation, a link from each parent to its child. Nodes are coloured by the baby's colour and
 * sized by its fitness; their places depend on who is shown, not on the figures that tick.
 */
export const NetworkView = memo(function NetworkView({
  babies,
  selectedId,
  onSelect,
}: {
  babies: DigitalBaby[];
  selectedId: string | null;
  onSelect: (id: string) => void;
}) {
  // Drawn at the container's size, so text and nodes keep their size whatever the width.
  const { ref, width: measured } = useElementSize();
  const width = Math.round(measured) || DEFAULT_WIDTH;
  const shown = useMemo(() => networkBabies(babies), [babies]);
  const layout = useMemo(() => networkLayout(shown, width, HEIGHT), [shown, width]);
  const selectedLinks = useMemo(() => {
    const linked = new Set<string>();
    for (const e of layout.edges) {
      if (e.from === selectedId) linked.add(e.to);
      if (e.to === selectedId) linked.add(e.from);
    }
    return linked;
  }, [layout, selectedId]);

  return (
    <Box ref={ref}>
      <svg
        viewBox={`0 0 ${width} ${HEIGHT}`}
        width={width}
        height={HEIGHT}
        role="group"
        aria-label={M.viewNetwork}
        // Drawn at DEFAULT_WIDTH until the container is measured (the first frame): never wider
        // than the container meanwhile (a 960 px drawing overflowed a 1024 px window's main area).
        style={{ display: 'block', maxWidth: '100%' }}
      >
        <g aria-hidden>
          {layout.layers.map((layer) => (
            <text
              key={layer.generation}
              x={layer.x}
              y={16}
              textAnchor="middle"
              fontSize={12}
              fill="var(--mantine-color-dimmed)"
            >
              {`Gén. ${layer.generation}`}
            </text>
          ))}
          {layout.edges.map((e) => {
            const from = layout.positions.get(e.from)!;
            const to = layout.positions.get(e.to)!;
            const lit = e.from === selectedId || e.to === selectedId;
            return (
              <line
                key={`${e.from}>${e.to}`}
                x1={from.x}
                y1={from.y}
                x2={to.x}
                y2={to.y}
                stroke={lit ? 'var(--mantine-color-yellow-4)' : 'var(--mantine-color-gray-6)'}
                strokeOpacity={lit ? 0.9 : 0.35}
                strokeWidth={lit ? 2 : 1}
              />
            );
          })}
        </g>
        {shown.map((baby) => {
          const p = layout.positions.get(baby.id)!;
          const r = 5 + baby.fitness * 12;
          const selected = baby.id === selectedId;
          const dim = selectedId !== null && !selected && !selectedLinks.has(baby.id);
          return (
            <g
              key={baby.id}
              transform={`translate(${p.x} ${p.y})`}
              role="button"
              tabIndex={0}
              aria-label={M.baby(baby.id)}
              aria-pressed={selected}
              data-baby-id={baby.id}
              onClick={() => onSelect(baby.id)}
              onKeyDown={onActivate(() => onSelect(baby.id))}
              style={{ cursor: 'pointer', outline: 'none' }}
              opacity={baby.status === 'archived' ? 0.45 : dim ? 0.55 : 1}
            >
              <title>
                {`${M.baby(baby.id)} · G${baby.generation} · ${M.fitness} ${formatShare(baby.fitness)} · ${STATUS_LABELS[baby.status]}`}
              </title>
              {baby.status === 'testing' ? (
                <circle
                  r={r + 4}
                  fill="none"
                  stroke={baby.color}
                  strokeWidth={1.5}
                  strokeDasharray="3 3"
                />
              ) : null}
              <circle
                r={r}
                fill={baby.color}
                stroke={selected ? 'var(--mantine-color-text)' : 'rgba(0,0,0,0.35)'}
                strokeWidth={selected ? 3 : 1}
              />
            </g>
          );
        })}
      </svg>
      <Text size="xs" c="dimmed" mt="xs">
        {M.networkLegend}
        {babies.length > shown.length ? ` ${M.networkCap(NETWORK_VIEW_MAX, babies.length)}` : ''}
      </Text>
    </Box>
  );
});
