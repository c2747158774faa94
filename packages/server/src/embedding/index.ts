/** The embedding layer's public surface; see builtin-embedder.ts for the recipe. */
export { dot, embedInBatches, normalizeInPlace, type Embedder } from './embedder.js';
export {
  BUILTIN_DIMENSION,
  BUILTIN_EMBEDDER_ID,
  BuiltinEmbedder,
  loadBuiltinEmbedderSync,
  prepareBuiltinModel,
} from './builtin-embedder.js';
export {
  BuiltinModel,
  builtinModelPath,
  prepareBuiltinModelSync,
  type PrepareOptions,
  type PrepareResult,
} from './builtin-model.js';
export {
  createEmbedderPool,
  EMBEDDER_WORKER_FILE,
  EmbedderPool,
  siblingModule,
} from './embedder-pool.js';
export {
  ONNX_WORKER_FILE,
  OnnxEmbedder,
  OnnxRunner,
  type OnnxEmbedderOptions,
  type OnnxLoadMeasurement,
  type OnnxRunnerOptions,
} from './onnx-embedder.js';
// Types only: the runtime itself loads in the worker threads.
export type {
  LabelScore,
  LoadMeasurement,
  OnnxEntity,
  OnnxEntityLabel,
  OnnxTask,
} from './onnx-runtime.js';
export { tokenize } from './text-features.js';
