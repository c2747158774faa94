/** Toasts (spec 000 §2, §9): top right, 4 s for errors and normal ones, 2 s for successes, 20 at once. */
import { notifications } from '@mantine/notifications';

export const TOAST_POSITION = 'top-right' as const;
export const TOAST_LIMIT = 20;
export const TOAST_AUTO_CLOSE_MS = 4000;
const SUCCESS_TOAST_AUTO_CLOSE_MS = 2000;

export const toast = {
  success(message: string) {
    return notifications.show({
      message,
      color: 'teal',
      autoClose: SUCCESS_TOAST_AUTO_CLOSE_MS,
    });
  },
  info(message: string) {
    return notifications.show({ message, color: 'blue', autoClose: TOAST_AUTO_CLOSE_MS });
  },
  warning(message: string) {
    return notifications.show({ message, color: 'yellow', autoClose: TOAST_AUTO_CLOSE_MS });
  },
  /**
   * `dedupe` keys the toast by its text, so a failing poll shows its error once while it is on
   * screen instead of stacking a copy every few seconds.
   */
  error(message: string, options: { dedupe?: boolean } = {}) {
    return notifications.show({
      id: options.dedupe ? `error:${message}` : undefined,
      message,
      color: 'red',
      autoClose: TOAST_AUTO_CLOSE_MS,
    });
  },
};
