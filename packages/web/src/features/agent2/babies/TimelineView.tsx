import { memo, useMemo } from 'react';
import { Box, Text } from '@mantine/core';
import { useElementSize } from '@mantine/hooks';
import type { DigitalBaby } from '../lab/types';
import { formatShare, formatSimTime, timelineLayout } from './babiesView';
import { BABIES_MESSAGES as M, STATUS_LABELS } from './messages';
import { DEFAULT_WIDTH, onActivate } from './NetworkView';

/** Lanes drawn at most: the newest generations (older ones are in the grid). */
const TIMELINE_MAX_LANES = 8;
const LABEL_W = 110;
const RIGHT_PAD = 16;
const ROW_H = 14;
const LANE_PAD = 8;
const LANE_GAP = 4;
const AXIS_H = 28;

/** Experiences as dots on a lifeline: one path per kind, not an element per experience. */
function dots(times: number[], x: (t: number) => number, y: number): string {
  return times.map((t) => `M${x(t).toFixed(1)} ${y}h0.01`).join('');
}

const Lifeline = memo(function Lifeline({
  baby,
  start,
  end,
  y,
  x,
  selected,
  onSelect,
}: {
  baby: DigitalBaby;
  start: number;
  end: number;
  y: number;
  x: (t: number) => number;
  selected: boolean;
  onSelect: (id: string) => void;
}) {
  const x1 = x(start);
  const x2 = Math.max(x(end), x1 + 2);
  const successes = baby.experiences.filter((e) => e.result.success).map((e) => e.at);
  const failures = baby.experiences.filter((e) => !e.result.success).map((e) => e.at);
  return (
    <g
      role="button"
      tabIndex={0}
      aria-label={M.baby(baby.id)}
      aria-pressed={selected}
      data-baby-id={baby.id}
      onClick={() => onSelect(baby.id)}
      onKeyDown={onActivate(() => onSelect(baby.id))}
      style={{ cursor: 'pointer', outline: 'none' }}
      opacity={baby.status === 'archived' ? 0.5 : 1}
    >
      <title>
        {`${M.baby(baby.id)} · ${M.fitness} ${formatShare(baby.fitness)} · ${STATUS_LABELS[baby.status]}`}
      </title>
      {/* A transparent band the height of the row: a thin line is hard to hit. */}
      <rect x={x1 - 4} y={y - ROW_H / 2} width={x2 - x1 + 8} height={ROW_H} fill="transparent" />
      {selected ? (
        <line
          x1={x1}
          x2={x2}
          y1={y}
          y2={y}
          stroke="var(--mantine-color-text)"
          strokeWidth={9}
          strokeLinecap="round"
          strokeOpacity={0.5}
        />
      ) : null}
      <line
        x1={x1}
        x2={x2}
        y1={y}
        y2={y}
        stroke={baby.color}
        strokeWidth={3}
        strokeLinecap="round"
      />
      {/* Each dot over a ring of the page's colour, to stand out on any lifeline's colour. */}
      <path
        d={dots([...failures, ...successes], x, y)}
        stroke="var(--mantine-color-body)"
        strokeWidth={8}
        strokeLinecap="round"
      />
      <path
        d={dots(failures, x, y)}
        stroke="var(--mantine-color-red-5)"
        strokeWidth={5}
        strokeLinecap="round"
      />
      <path
        d={dots(successes, x, y)}
        stroke="var(--mantine-color-teal-4)"
        strokeWidth={5}
        strokeLinecap="round"
      />
    </g>
  );
});

/**
 * The timeline view: a lane per generation (newest on top), a lifeline per baby over simulation
 * time, in the baby's colour, with its experiences as dots (teal a success, red a failure).
 */
export const TimelineView = memo(function TimelineView({
  babies,
  now,
  selectedId,
  onSelect,
}: {
  babies: DigitalBaby[];
  /** Simulation time (ms). */
  now: number;
  selectedId: string | null;
  onSelect: (id: string) => void;
}) {
  const { ref, width: measured } = useElementSize();
  const width = Math.round(measured) || DEFAULT_WIDTH;
  const layout = useMemo(() => timelineLayout(babies, now, TIMELINE_MAX_LANES), [babies, now]);
  const { from, to } = layout;
  const plotW = width - LABEL_W - RIGHT_PAD;
  const x = useMemo(
    () => (t: number) => LABEL_W + ((t - from) / (to - from)) * plotW,
    [from, to, plotW],
  );

  let y = 0;
  const lanes = layout.lanes.map((lane) => {
    const top = y;
    const height = lane.rows.length * ROW_H + 2 * LANE_PAD;
    y += height + LANE_GAP;
    return { lane, top, height };
  });
  const height = y + AXIS_H;
  const ticks = Array.from({ length: 5 }, (_, i) => from + ((to - from) * i) / 4);

  return (
    <Box ref={ref}>
      <svg
        viewBox={`0 0 ${width} ${height}`}
        width={width}
        height={height}
        role="group"
        aria-label={M.viewTimeline}
        // Drawn at DEFAULT_WIDTH until the container is measured (the first frame): never wider
        // than the container meanwhile (a 960 px drawing overflowed a 1024 px window's main area).
        style={{ display: 'block', maxWidth: '100%' }}
      >
        {lanes.map(({ lane, top, height: laneH }, i) => (
          <g key={lane.generation}>
            <rect
              x={0}
              y={top}
              width={width}
              height={laneH}
              rx={6}
              fill={i % 2 === 0 ? 'var(--mantine-color-default-hover)' : 'transparent'}
            />
            <text x={12} y={top + laneH / 2 + 4} fontSize={12} fill="var(--mantine-color-dimmed)">
              {M.generationOption(lane.generation)}
            </text>
            {lane.rows.map(({ baby, start, end }, row) => (
              <Lifeline
                key={baby.id}
                baby={baby}
                start={start}
                end={end}
                y={top + LANE_PAD + row * ROW_H + ROW_H / 2}
                x={x}
                selected={baby.id === selectedId}
                onSelect={onSelect}
              />
            ))}
          </g>
        ))}
        <g aria-hidden>
          <line
            x1={LABEL_W}
            x2={width - RIGHT_PAD}
            y1={y + 2}
            y2={y + 2}
            stroke="var(--mantine-color-gray-6)"
          />
          {ticks.map((t, i) => (
            <text
              key={i}
              x={x(t)}
              y={y + 18}
              fontSize={11}
              textAnchor={i === 0 ? 'start' : i === ticks.length - 1 ? 'end' : 'middle'}
              fill="var(--mantine-color-dimmed)"
            >
              {formatSimTime(t)}
            </text>
          ))}
        </g>
      </svg>
      <Text size="xs" c="dimmed" mt="xs">
        {M.timelineLegend} {M.timelineAxis} : {formatSimTime(now)}.
        {layout.hiddenGenerations > 0 ? ` ${M.timelineCap(layout.lanes.length)}` : ''}
      </Text>
    </Box>
  );
});
