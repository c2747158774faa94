/**
 * The fetch and analysis steps of the encyclopedia page (spec 001 §2.10, §4, §5) as pure
 * functions: title sanitising, field checks and the step lists' transitions.
 */
import type { Step, StepStatus } from '../../components/StepList';
import { WIKI_MESSAGES } from './messages';

export const FETCH_STEPS = [
  { id: 'validate', label: 'Validate title' },
  { id: 'api', label: 'Encyclopedia API call' },
  { id: 'clean', label: 'Clean text' },
  { id: 'ui', label: 'Update UI' },
] as const;

export const ANALYSIS_STEPS = [
  { id: 'validate', label: 'Validate data' },
  { id: 'payload', label: 'Prepare payload' },
  { id: 'api', label: 'API call' },
  { id: 'result', label: 'Process result' },
] as const;

/** Every step pending. */
export function pendingSteps(defs: readonly { id: string; label: string }[]): Step[] {
  return defs.map((d) => ({ id: d.id, label: d.label, status: 'pending' }));
}

/** The list with one step changed. */
export function setStep(steps: Step[], id: string, status: StepStatus, detail?: string): Step[] {
  return steps.map((s) => (s.id === id ? { ...s, status, detail } : s));
}

// C0 and C1 control characters other than whitespace, which becomes a plain space first.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028\u2029\ufeff]/g;

/** The title as sent: whitespace runs to one space, control characters dropped, trimmed. */
export function sanitizeTitle(raw: string): string {
  return raw.replace(/\s+/g, ' ').replace(CONTROL, '').replace(/ {2,}/g, ' ').trim();
}

/** Where /$/m matches: the end of the text or a line terminator. */
const endsLine = (c: string | undefined) =>
  c === undefined || c === '\n' || c === '\r' || c === '\u2028' || c === '\u2029';

/** The text the encyclopedia answered, tidied for the text area: \n line ends, no blank runs. */
export function cleanArticleText(text: string): string {
  return (
    text
      .replace(/\r\n?/g, '\n')
      // Spaces before a line end, found run by run: /[ \t]+$/gm retried every position of a
      // long run of spaces, quadratic time on the page's thread (issue 23).
      .replace(/[ \t]+/g, (run: string, at: number, all: string) =>
        endsLine(all[at + run.length]) ? '' : run,
      )
      .replace(/\n{3,}/g, '\n\n')
      .trim()
  );
}

export interface AnalysisCheck {
  context?: typeof WIKI_MESSAGES.contextEmpty;
  question?: typeof WIKI_MESSAGES.questionEmpty;
}

/** The inline messages of spec 001 §5 for blank fields (empty object when both are filled). */
export function checkAnalysis(context: string, question: string): AnalysisCheck {
  const found: AnalysisCheck = {};
  if (!context.trim()) found.context = WIKI_MESSAGES.contextEmpty;
  if (!question.trim()) found.question = WIKI_MESSAGES.questionEmpty;
  return found;
}

/** The toasts matching the inline messages. */
export function analysisToasts(check: AnalysisCheck): string[] {
  const toasts: string[] = [];
  if (check.context) toasts.push(WIKI_MESSAGES.contextRequired);
  if (check.question) toasts.push(WIKI_MESSAGES.questionRequired);
  return toasts;
}

/** Buttons: fetch needs something typed in the title, analyse a text and a question. */
export const canFetch = (title: string) => title.length > 0;
export const canAnalyze = (text: string, question: string) =>
  text.length > 0 && question.length > 0;
