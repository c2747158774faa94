/**
 * The model services built together, in their order: the model files, the registry (which
 * loads and measures through them), the installer (which asks the registry what is active).
 * One throttle of model_progress events serves the three.
 */
import type { Engine } from '../engine/engine.js';
import type { EventBus } from '../lib/event-bus.js';
import type { Logger } from '../logging.js';
import type { SafeFetcher } from '../scraping/safe-fetcher.js';
import type { ModelRepository } from '../store/model.repository.js';
import { ModelFilesService } from './model-files.service.js';
import { ModelInstallService } from './model-install.service.js';
import { ModelRegistry, type ModelRegistryDeps } from './model-registry.service.js';
import { ModelEvents, type ModelJobs, type ModelRunner } from './model-rows.js';

export interface ModelServicesDeps {
  models: ModelRepository;
  /** `<dataDir>/models`: every model's files, the staging area and the built-in model. */
  modelsRoot: string;
  hub: { fetcher: SafeFetcher; url: string; idleTimeoutMs: number };
  /** A function: the job service is built around the queue, whose jobs use the installer. */
  jobs: () => ModelJobs;
  engine: Pick<Engine, 'embed' | 'rank' | 'setLanguagePacks' | 'unloadOnnxModels'>;
  /** Makes the ONNX runner on first use (its threads load a native runtime). */
  createRunner: () => ModelRunner;
  bus: EventBus;
  log: Logger;
  onActivateEmbedding: ModelRegistryDeps['onActivateEmbedding'];
  activeSpace: ModelRegistryDeps['activeSpace'];
  pendingSwitches: ModelRegistryDeps['pendingSwitches'];
}

export interface ModelServices {
  registry: ModelRegistry;
  installs: ModelInstallService;
  files: ModelFilesService;
  /** Brings the rows in line with this process and follows the install and switch jobs. */
  start(): void;
  close(): Promise<void>;
}

export function createModelServices(deps: ModelServicesDeps): ModelServices {
  const { models, bus, log, engine } = deps;
  const events = new ModelEvents({ models, bus });
  const files = new ModelFilesService({
    models,
    modelsRoot: deps.modelsRoot,
    engine,
    createRunner: deps.createRunner,
    events,
    log,
  });
  const registry = new ModelRegistry({
    models,
    hubUrl: deps.hub.url,
    engine,
    files,
    events,
    jobs: deps.jobs,
    bus,
    log,
    onActivateEmbedding: deps.onActivateEmbedding,
    activeSpace: deps.activeSpace,
    pendingSwitches: deps.pendingSwitches,
  });
  const installs = new ModelInstallService({
    models,
    hub: deps.hub,
    registry,
    files,
    events,
    jobs: deps.jobs,
    bus,
    log,
  });
  return {
    registry,
    installs,
    files,
    start() {
      // The installer first: an install job's end settles its row before the switch listener
      // reads the rows (the order the one service had).
      installs.start();
      registry.start();
    },
    async close() {
      installs.close();
      registry.close();
      await files.close();
    },
  };
}
