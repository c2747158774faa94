import os from 'node:os';
import path from 'node:path';
import { prepareBuiltinModel } from '../src/embedding/builtin-embedder.js';

/** One converted built-in model for the whole run; each test server's data dir links to it. */
export const SHARED_MODEL_ROOT = path.join(os.tmpdir(), 'adam-test-model-cache');

export default async function setup(): Promise<void> {
  await prepareBuiltinModel(SHARED_MODEL_ROOT);
}
