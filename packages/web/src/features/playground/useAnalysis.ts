/**
 * The analyse state of the Playground and Playground URL: context, question, language, the
 * answer of POST /playground/analyze and its failure ('Analysis failed', spec 001 §8).
 */
import { useCallback, useRef, useState } from 'react';
import type { AnalyzeResponse } from '@adam/contracts';
import { toast } from '../../layout/toasts';
import { analyzeReady } from './analysis';
import { PLAYGROUND_MESSAGES } from './messages';
import { useAnalyzeText } from './playground.api';
import { failureDetail } from './urlFetch';

export const AUTO_LANGUAGE = 'auto';

export function useAnalysis() {
  const { mutateAsync, reset: resetMutation, isPending: busy } = useAnalyzeText();
  const [context, setContext] = useState('');
  const [question, setQuestion] = useState('');
  const [language, setLanguage] = useState(AUTO_LANGUAGE);
  const [result, setResult] = useState<AnalyzeResponse | null>(null);
  /** Set after a failed analysis: the server's detail, or '' without one. */
  const [failure, setFailure] = useState<string | null>(null);
  // A reset or a newer analysis makes an answer still in flight stale.
  const run = useRef(0);

  const analyze = useCallback(async () => {
    if (!analyzeReady(context, question)) return;
    const current = ++run.current;
    setFailure(null);
    try {
      const answer = await mutateAsync({
        context,
        question: question.trim(),
        language,
      });
      if (current !== run.current) return;
      setResult(answer);
    } catch (error) {
      if (current !== run.current) return;
      setResult(null);
      setFailure(failureDetail(error) ?? '');
      toast.error(PLAYGROUND_MESSAGES.analysisFailed);
    }
  }, [context, question, language, mutateAsync]);

  /** A new text to analyse (a scraped page): earlier results no longer apply to it. */
  const loadContext = useCallback((text: string) => {
    run.current += 1;
    setContext(text);
    setResult(null);
    setFailure(null);
  }, []);

  const reset = useCallback(() => {
    run.current += 1;
    setContext('');
    setQuestion('');
    setLanguage(AUTO_LANGUAGE);
    setResult(null);
    setFailure(null);
    resetMutation();
  }, [resetMutation]);

  const empty = !context && !question && language === AUTO_LANGUAGE && !result && failure === null;

  return {
    context,
    setContext,
    question,
    setQuestion,
    language,
    setLanguage,
    result,
    failure,
    busy,
    ready: analyzeReady(context, question, busy),
    empty,
    analyze,
    loadContext,
    reset,
  };
}

export type Analysis = ReturnType<typeof useAnalysis>;
