/** Spec texts of the sources screens (spec 002 §5, §8), exactly as written. */
export const MESSAGES = {
  noUrls: 'Please enter at least one URL',
  queueFailed: 'Failed to queue sources',
  processingFailed: 'Processing failed',
} as const;
