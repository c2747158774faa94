/**
 * Install and uninstall with their polling (spec 001 §4): after a successful start the model and
 * its progress are polled every second until the model errs, is installed, or 5 minutes pass;
 * after an uninstall its progress is polled until an error or 100. model_progress events move
 * the same cached progress meanwhile (models.api's applyModelProgress).
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import type { InstallProgress, Model, ModelActionResult } from '@adam/contracts';
import { toast } from '../../layout/toasts';
import { INSTALL_POLL_MS, INSTALL_TIMEOUT_MS } from './constants';
import { installCancelled, MODEL_MESSAGES } from './messages';
import {
  fetchInstallProgress,
  fetchModel,
  installModel,
  modelKeys,
  reasonOf,
  storeModel,
  storeProgress,
  storeStartAnswer,
  uninstallModel,
} from './models.api';
import { isInstalled } from './modelRules';

export type ModelOperationKind = 'install' | 'uninstall';
export interface ModelOperation {
  kind: ModelOperationKind;
  startedAt: number;
}

const settled = <T>(result: PromiseSettledResult<T>): T | null =>
  result.status === 'fulfilled' ? result.value : null;

function refreshAfter(queryClient: QueryClient, id: number) {
  for (const queryKey of [
    modelKeys.list,
    modelKeys.detail(id),
    modelKeys.languagePacks,
    modelKeys.cleanupFiles,
  ]) {
    void queryClient.invalidateQueries({ queryKey });
  }
}

export function useModelOperations(models: readonly Model[] | undefined) {
  const queryClient = useQueryClient();
  const [operations, setOperations] = useState<Record<number, ModelOperation>>({});
  /** The stop function of each model's running poll. */
  const polls = useRef(new Map<number, () => void>());
  /** Installs given up on after the time-out: not followed again from the list this visit. */
  const timedOut = useRef(new Set<number>());

  useEffect(() => {
    const running = polls.current;
    return () => {
      for (const stop of running.values()) stop();
      running.clear();
    };
  }, []);

  const setOperation = useCallback((id: number, operation: ModelOperation | null) => {
    setOperations((current) => {
      if (operation) return { ...current, [id]: operation };
      const { [id]: _ended, ...rest } = current;
      return rest;
    });
  }, []);

  const finish = useCallback(
    (id: number) => {
      polls.current.get(id)?.();
      polls.current.delete(id);
      setOperation(id, null);
      refreshAfter(queryClient, id);
    },
    [queryClient, setOperation],
  );

  /**
   * Polls `read` every second; `decide` gets each answer with the time since the start and says
   * whether the operation is over. A slow answer skips ticks instead of piling requests up, and
   * nothing is decided once the poll was stopped (unmount, another operation).
   */
  const poll = useCallback(
    <T>(
      id: number,
      startedAt: number,
      read: () => Promise<T>,
      decide: (data: T, elapsed: number) => boolean,
    ) => {
      polls.current.get(id)?.();
      let stopped = false;
      let busy = false;
      const timer = setInterval(() => {
        if (busy) return;
        busy = true;
        void read()
          .then((data) => {
            if (!stopped && decide(data, Date.now() - startedAt)) finish(id);
          })
          .finally(() => {
            busy = false;
          });
      }, INSTALL_POLL_MS);
      polls.current.set(id, () => {
        stopped = true;
        clearInterval(timer);
      });
    },
    [finish],
  );

  const watchInstall = useCallback(
    (model: Model, startedAt: number) => {
      setOperation(model.id, { kind: 'install', startedAt });
      poll(
        model.id,
        startedAt,
        async () => {
          const [m, p] = await Promise.allSettled([
            fetchModel(model.id),
            fetchInstallProgress(model.id),
          ]);
          return { model: settled(m), progress: settled(p) };
        },
        ({ model: current, progress }, elapsed) => {
          if (progress) storeProgress(queryClient, progress);
          if (current) storeModel(queryClient, current);
          const status = current?.status ?? progress?.status;
          if (status === 'error') {
            const message = progress?.message || current?.error || '';
            toast.error(
              message
                ? MODEL_MESSAGES.installFailedFor(model.name, message)
                : MODEL_MESSAGES.installationFailed,
            );
            return true;
          }
          // Back to not installed while followed: its install job was cancelled.
          if (status === 'not_installed') {
            toast.info(installCancelled(model.name));
            return true;
          }
          if (status && isInstalled(status)) {
            queryClient.setQueryData<InstallProgress>(modelKeys.progress(model.id), (p) =>
              p ? { ...p, progress: 100, status } : p,
            );
            toast.success(MODEL_MESSAGES.installed(model.name));
            return true;
          }
          if (elapsed >= INSTALL_TIMEOUT_MS) {
            timedOut.current.add(model.id);
            toast.error(MODEL_MESSAGES.installTimedOut(model.name));
            return true;
          }
          return false;
        },
      );
    },
    [poll, queryClient, setOperation],
  );

  const install = useCallback(
    async (model: Model) => {
      const startedAt = Date.now();
      timedOut.current.delete(model.id);
      setOperation(model.id, { kind: 'install', startedAt });
      const before = queryClient.getQueryData<InstallProgress>(modelKeys.progress(model.id));
      let result: ModelActionResult;
      try {
        result = await installModel(model.id);
      } catch (error) {
        setOperation(model.id, null);
        toast.error(MODEL_MESSAGES.startFailed(model.name, reasonOf(error)));
        return;
      }
      toast.success(MODEL_MESSAGES.installStarting(model.name));
      storeStartAnswer(queryClient, result, before);
      watchInstall(model, startedAt);
    },
    [queryClient, setOperation, watchInstall],
  );

  const uninstall = useCallback(
    async (model: Model) => {
      const startedAt = Date.now();
      setOperation(model.id, { kind: 'uninstall', startedAt });
      const before = queryClient.getQueryData<InstallProgress>(modelKeys.progress(model.id));
      let result: ModelActionResult;
      try {
        result = await uninstallModel(model.id);
      } catch (error) {
        setOperation(model.id, null);
        toast.error(MODEL_MESSAGES.uninstallFailed(model.name, reasonOf(error)));
        return;
      }
      toast.success(MODEL_MESSAGES.uninstalled(model.name));
      storeStartAnswer(queryClient, result, before);
      refreshAfter(queryClient, model.id);
      poll(
        model.id,
        startedAt,
        () => fetchInstallProgress(model.id).catch(() => null),
        (progress, elapsed) => {
          if (progress) storeProgress(queryClient, progress);
          // Files gone (not_installed) ends it too: its progress then reads 0, not 100.
          const over =
            !!progress &&
            (progress.status === 'error' ||
              progress.progress >= 100 ||
              progress.status === 'not_installed');
          return over || elapsed >= INSTALL_TIMEOUT_MS;
        },
      );
    },
    [poll, queryClient, setOperation],
  );

  // A model found downloading (an install started elsewhere, or before this visit) is followed
  // too, so its card moves and its end is announced.
  useEffect(() => {
    for (const model of models ?? []) {
      const followed = polls.current.has(model.id) || timedOut.current.has(model.id);
      if (model.status === 'downloading' && !followed) {
        watchInstall(model, Date.now());
      }
    }
  }, [models, watchInstall]);

  return { operations, install, uninstall };
}
