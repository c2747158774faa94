/**
 * The install of one language pack from its dialog (spec 001 §2.1, §4): start, then poll the
 * pack's progress every 5 s until it is installed (close, refresh, 'Language pack {code}
 * installed') or fails ('Failed to install language pack'). An answer without a progress phase
 * has nothing to poll: the list is refreshed after 3 s and read instead.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import type { InstallProgress, LanguagePack, ModelStatus } from '@adam/contracts';
import { toast } from '../../layout/toasts';
import { DIALOG_INSTALL_POLL_MS, FALLBACK_REFRESH_MS, INSTALL_TIMEOUT_MS } from './constants';
import { MODEL_MESSAGES } from './messages';
import {
  fetchInstallProgress,
  fetchLanguagePacks,
  installLanguagePack,
  modelKeys,
  reasonOf,
  storeProgress,
  storeStartAnswer,
} from './models.api';
import { isInstalled } from './modelRules';

export interface PackInstallState {
  installing: boolean;
  /** Why the last attempt failed, shown in the dialog. */
  error: string | null;
}

export function useLanguagePackInstall(pack: LanguagePack, onInstalled: () => void) {
  const queryClient = useQueryClient();
  const [state, setState] = useState<PackInstallState>({ installing: false, error: null });
  const stopRef = useRef<() => void>(() => {});
  const onInstalledRef = useRef(onInstalled);
  onInstalledRef.current = onInstalled;

  // Closing the dialog stops its timers; the server goes on, and the model list follows it.
  useEffect(() => () => stopRef.current(), []);

  const refresh = useCallback(() => {
    for (const queryKey of [modelKeys.languagePacks, modelKeys.list, modelKeys.cleanupFiles]) {
      void queryClient.invalidateQueries({ queryKey });
    }
  }, [queryClient]);

  const succeed = useCallback(() => {
    stopRef.current();
    refresh();
    toast.success(MODEL_MESSAGES.languagePackInstalled(pack.code));
    setState({ installing: false, error: null });
    onInstalledRef.current();
  }, [pack.code, refresh]);

  const fail = useCallback(
    (reason: string) => {
      stopRef.current();
      refresh();
      toast.error(MODEL_MESSAGES.languagePackFailed);
      setState({ installing: false, error: reason });
    },
    [refresh],
  );

  /** What a status means for the dialog: over (one way or the other) or still going. */
  const settle = useCallback(
    (status: ModelStatus, message: string): boolean => {
      if (status === 'error') fail(message || MODEL_MESSAGES.installationFailed);
      else if (isInstalled(status)) succeed();
      else return false;
      return true;
    },
    [fail, succeed],
  );

  const follow = useCallback(
    (startedAt: number) => {
      stopRef.current();
      let stopped = false;
      let busy = false;
      const timer = setInterval(() => {
        if (busy) return;
        busy = true;
        fetchInstallProgress(pack.model_id)
          .then(
            (progress: InstallProgress) => {
              if (stopped) return;
              storeProgress(queryClient, progress);
              if (settle(progress.status, progress.message)) return;
              if (Date.now() - startedAt >= INSTALL_TIMEOUT_MS) {
                fail(MODEL_MESSAGES.installTimedOut(pack.name || pack.code));
              }
            },
            () => {
              if (!stopped && Date.now() - startedAt >= INSTALL_TIMEOUT_MS) {
                fail(MODEL_MESSAGES.installTimedOut(pack.name || pack.code));
              }
            },
          )
          .finally(() => {
            busy = false;
          });
      }, DIALOG_INSTALL_POLL_MS);
      stopRef.current = () => {
        stopped = true;
        clearInterval(timer);
      };
    },
    [fail, pack.code, pack.model_id, pack.name, queryClient, settle],
  );

  /** No progress phase: read the refreshed list after 3 s; still going means poll after all. */
  const refreshLater = useCallback(
    (startedAt: number) => {
      stopRef.current();
      let stopped = false;
      const timer = setTimeout(() => {
        void queryClient
          .fetchQuery({
            queryKey: modelKeys.languagePacks,
            queryFn: ({ signal }) => fetchLanguagePacks(signal),
            staleTime: 0,
          })
          .then(
            (packs) => {
              if (stopped) return;
              const now = packs.find((p) => p.code === pack.code);
              if (now?.installed) succeed();
              else if (!now || !settle(now.status, '')) follow(startedAt);
            },
            () => {
              if (!stopped) follow(startedAt);
            },
          );
      }, FALLBACK_REFRESH_MS);
      stopRef.current = () => {
        stopped = true;
        clearTimeout(timer);
      };
    },
    [follow, pack.code, queryClient, settle, succeed],
  );

  const install = useCallback(async () => {
    const startedAt = Date.now();
    setState({ installing: true, error: null });
    // The bar starts from 0, not from a previous install's figure.
    const placeholder: InstallProgress = {
      model_id: pack.model_id,
      progress: 0,
      status: 'downloading',
      message: 'Starting…',
      downloaded_bytes: 0,
      total_bytes: 0,
      job_id: null,
    };
    storeProgress(queryClient, placeholder);
    let result;
    try {
      result = await installLanguagePack(pack.code);
    } catch (error) {
      fail(reasonOf(error));
      return;
    }
    if (settle(result.status, result.message)) return;
    if (result.progress === undefined) {
      refreshLater(startedAt);
    } else {
      storeStartAnswer(queryClient, result, placeholder);
      follow(startedAt);
    }
  }, [fail, follow, pack.code, pack.model_id, queryClient, refreshLater, settle]);

  // A pack already downloading when the dialog opens (started before) is followed from the start.
  const [downloading] = useState(pack.status === 'downloading');
  useEffect(() => {
    if (!downloading) return;
    setState({ installing: true, error: null });
    follow(Date.now());
  }, [downloading, follow]);

  return { ...state, install };
}
