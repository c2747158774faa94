/**
 * One colour per emotion for every chart, table and badge of the console (Plutchik's wheel:
 * joy yellow, trust lime, fear green, surprise cyan, sadness blue, disgust purple, anger red,
 * anticipation orange). An emotion the contract adds later shows in gray until it gets one.
 */
import type { MantineColor } from '@mantine/core';
import type { Emotion } from '@adam/contracts';

export const EMOTION_COLORS: Record<Emotion, MantineColor> = {
  joy: 'yellow.5',
  trust: 'lime.6',
  fear: 'teal.7',
  surprise: 'cyan.4',
  sadness: 'blue.6',
  disgust: 'grape.5',
  anger: 'red.6',
  anticipation: 'orange.6',
};

const UNKNOWN_EMOTION_COLOR: MantineColor = 'gray.6';

export function emotionColor(emotion: string): MantineColor {
  return (EMOTION_COLORS as Record<string, MantineColor>)[emotion] ?? UNKNOWN_EMOTION_COLOR;
}

export function emotionLabel(emotion: string): string {
  return emotion.charAt(0).toUpperCase() + emotion.slice(1);
}
