/** Spec 001 §4, §5, §8: the texts the model screens show, exactly as the spec writes them. */
export const MODEL_MESSAGES = {
  installationFailed: 'Installation failed',
  installTimedOut: (model: string) => `Installation timed out or failed for ${model}`,
  languagePackFailed: 'Failed to install language pack',
  loadFailed: (message: string) => `Failed to load models: ${message}`,
  startFailed: (model: string, reason: string) =>
    `Failed to start installation for ${model}: ${reason}`,
  installFailedFor: (model: string, message: string) =>
    `Installation failed for ${model}: ${message}`,
  uninstallFailed: (model: string, reason: string) => `Failed to uninstall ${model}: ${reason}`,
  toggleFailed: (model: string, message: string) =>
    `Failed to update status for ${model}: ${message}`,
  notReadyForTest: 'Model not ready for testing—please install the language pack (see spaCy docs).',
  testFailed: (model: string, message: string) => `Test failed for ${model}: ${message}`,
  filesLoadFailed: 'Failed to load files',
  deleteFailed: 'Delete failed',
  clearCacheFailed: 'Failed to clear cache',

  languagePackInstalled: (code: string) => `Language pack ${code} installed`,
  installStarting: (model: string) =>
    `Starting installation for ${model}. This may take a few minutes...`,
  installed: (model: string) => `${model} installed successfully!`,
  uninstalled: (model: string) => `${model} uninstalled`,
  activated: (model: string) => `${model} activated`,
  deactivated: (model: string) => `${model} deactivated`,
  fileDeleted: 'File deleted',
  selectedDeleted: 'Deleted selected files',
  cacheCleared: 'Model cache cleared',

  testTextEmpty: 'Test text cannot be empty',
  uninstallConfirm:
    'Are you sure you want to uninstall this model? This will delete the model files.',
  noModels: 'No models found',
} as const;

/** Not in the spec: the version-mismatch line of the language-pack dialog, and the toggle's job. */
export const packVersionWarning = (version: string, required: string) =>
  `Pack version ${version} differs from the required ${required}; sentence splitting and entities may differ.`;
export const installCancelled = (model: string) =>
  `Installation of ${model} cancelled: its partial files stay, a new install resumes the download.`;
export const activatingLabel = (jobId: number) => `activating · re-embedding job #${jobId}`;
export const reembedJobNotice = (jobId: number) =>
  `The index is re-embedded with the new model as job #${jobId}; search answers from the current index until it completes.`;
