import { useRef, type ReactNode } from 'react';
import { Box, Paper, Text, Title } from '@mantine/core';
import { MONITORING_MESSAGES as M } from './messages';
import { fitCanvas, useAnimationFrame } from './useAnimationFrame';

/*
 * The Control Centre's neural resonance canvas and activity heat map: decorative animations only
 * (spec 001 §2.5). They draw no figure and claim nothing about the machine.
 */

const NODE_COUNT = 18;
const HEAT_COLUMNS = 24;
const HEAT_ROWS = 7;
/** The heat map changes a few times a second: a slow shimmer, not a flicker. */
const HEAT_FRAME_MS = 250;

// Fixed node layout: two rings whose radii breathe at their own phases.
const NODES = Array.from({ length: NODE_COUNT }, (_, i) => ({
  angle: (i / NODE_COUNT) * Math.PI * 2,
  ring: i % 2 === 0 ? 0.42 : 0.26,
  phase: (i * 2.399) % (Math.PI * 2),
}));

function DecorativeCard({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Paper withBorder radius="md" p="md" h="100%" aria-hidden="true">
      <Title order={5}>{title}</Title>
      <Text size="xs" c="dimmed" mb="xs">
        {M.decorative}
      </Text>
      {children}
    </Paper>
  );
}

export function NeuralResonanceCanvas() {
  const canvas = useRef<HTMLCanvasElement>(null);
  useAnimationFrame((time) => {
    const element = canvas.current;
    const ctx = element ? fitCanvas(element) : null;
    if (!element || !ctx) return;
    const w = element.clientWidth;
    const h = element.clientHeight;
    const t = time / 1000;
    const size = Math.min(w, h * 1.6);
    const points = NODES.map((n) => {
      const r = size * n.ring * (1 + 0.06 * Math.sin(t * 1.3 + n.phase));
      return {
        x: w / 2 + Math.cos(n.angle + t * 0.15) * r * 1.4,
        y: h / 2 + Math.sin(n.angle + t * 0.15) * r * 0.8,
        glow: 0.5 + 0.5 * Math.sin(t * 2 + n.phase),
      };
    });
    ctx.clearRect(0, 0, w, h);
    ctx.lineWidth = 1;
    for (let i = 0; i < points.length; i++) {
      for (const step of [1, 5]) {
        const a = points[i]!;
        const b = points[(i + step) % points.length]!;
        ctx.strokeStyle = `rgba(92, 124, 250, ${0.12 + 0.3 * a.glow * b.glow})`;
        ctx.beginPath();
        ctx.moveTo(a.x, a.y);
        ctx.lineTo(b.x, b.y);
        ctx.stroke();
      }
    }
    // A wave across the middle, its amplitude beating slowly.
    ctx.strokeStyle = 'rgba(32, 201, 151, 0.55)';
    ctx.lineWidth = 2;
    ctx.beginPath();
    for (let x = 0; x <= w; x += 4) {
      const y = h / 2 + Math.sin(x / 28 + t * 3) * (h / 8) * Math.sin(t * 0.7 + x / 160);
      if (x === 0) ctx.moveTo(x, y);
      else ctx.lineTo(x, y);
    }
    ctx.stroke();
    for (const p of points) {
      ctx.fillStyle = `rgba(132, 94, 247, ${0.45 + 0.55 * p.glow})`;
      ctx.beginPath();
      ctx.arc(p.x, p.y, 2.5 + 2.5 * p.glow, 0, Math.PI * 2);
      ctx.fill();
    }
  });
  return (
    <DecorativeCard title="Neural resonance">
      <Box component="canvas" ref={canvas} w="100%" h={180} style={{ display: 'block' }} />
    </DecorativeCard>
  );
}

export function ActivityHeatMap() {
  const canvas = useRef<HTMLCanvasElement>(null);
  const last = useRef(-Infinity);
  useAnimationFrame((time) => {
    if (time - last.current < HEAT_FRAME_MS) return;
    last.current = time;
    const element = canvas.current;
    const ctx = element ? fitCanvas(element) : null;
    if (!element || !ctx) return;
    const w = element.clientWidth;
    const h = element.clientHeight;
    const t = time / 1000;
    const gap = 3;
    const cw = (w - gap * (HEAT_COLUMNS - 1)) / HEAT_COLUMNS;
    const ch = (h - gap * (HEAT_ROWS - 1)) / HEAT_ROWS;
    ctx.clearRect(0, 0, w, h);
    for (let row = 0; row < HEAT_ROWS; row++) {
      for (let col = 0; col < HEAT_COLUMNS; col++) {
        // Two drifting waves: a smooth pattern that never repeats exactly.
        const v =
          0.5 +
          0.25 * Math.sin(col / 3 + t * 0.9 + row) +
          0.25 * Math.sin(row / 1.7 - t * 0.6 + col / 5);
        ctx.fillStyle = `rgba(32, 201, 151, ${0.08 + 0.8 * v * v})`;
        ctx.fillRect(col * (cw + gap), row * (ch + gap), cw, ch);
      }
    }
  });
  return (
    <DecorativeCard title="Activity heat map">
      <Box component="canvas" ref={canvas} w="100%" h={150} style={{ display: 'block' }} />
    </DecorativeCard>
  );
}
