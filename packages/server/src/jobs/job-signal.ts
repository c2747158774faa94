import { setMaxListeners } from 'node:events';

/**
 * The controller of a running job's signal. Every lane, fetch, scheduler wait and engine task of
 * the job listens to that one signal (each removes its listener when done), so more than
 * Node's default 10 at once is the design, not a leak: a process_urls job with 16 lanes
 * otherwise prints a MaxListenersExceededWarning.
 */
export function jobAbortController(): AbortController {
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  return controller;
}
