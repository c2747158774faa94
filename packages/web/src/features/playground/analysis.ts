/** The analyse inputs and results of the Playground and Playground URL (spec 001 §2.8, §5). */
import type { Entity } from '@adam/contracts';
import { formatNumber } from '../../lib/format';

/** Analyze needs a context and a question that are not blank, and no analysis in flight. */
export const analyzeReady = (context: string, question: string, busy = false): boolean =>
  !busy && context.trim().length > 0 && question.trim().length > 0;

/** A sentence's score to 3 decimals ('-' for a non-finite one). */
export const formatScore = (score: number, digits = 3): string => formatNumber(score, digits);

/** 'text - label', as the spec shows named entities. */
export const entityText = (entity: Entity): string => `${entity.text} - ${entity.label}`;
