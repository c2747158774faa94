/** Texts of the settings screens, exactly as spec 002 §8 writes them. */
export const RULE_MESSAGES = {
  loadFailed: 'Failed to load rules',
  addFailed: 'Failed to add rule',
  updateFailed: 'Update failed',
  deleteFailed: 'Delete failed',
} as const;

/** A spec failure text with the server's detail after it, as the spec's ': …' shows. */
export const withDetail = (message: string, detail?: string | null) =>
  detail ? `${message}: ${detail}` : message;
