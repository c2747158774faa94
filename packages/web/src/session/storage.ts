/**
 * The session lives in sessionStorage as exactly two entries (spec 000 §9): the api key and the
 * logged-in flag. Nothing else about the session is persisted.
 */
export const API_KEY_STORAGE_KEY = 'adam.api_key';
export const LOGGED_IN_STORAGE_KEY = 'adam.logged_in';

function storage(): Storage | null {
  try {
    return window.sessionStorage;
  } catch {
    // Storage can be disabled by browser privacy settings; the session then lasts one page view.
    return null;
  }
}

export function getApiKey(): string | null {
  return storage()?.getItem(API_KEY_STORAGE_KEY) ?? null;
}

export function setApiKey(key: string): void {
  storage()?.setItem(API_KEY_STORAGE_KEY, key);
}

export function isLoggedInFlagSet(): boolean {
  return storage()?.getItem(LOGGED_IN_STORAGE_KEY) === 'true';
}

export function saveSession(apiKey: string): void {
  setApiKey(apiKey);
  storage()?.setItem(LOGGED_IN_STORAGE_KEY, 'true');
}

export function clearSession(): void {
  storage()?.removeItem(API_KEY_STORAGE_KEY);
  storage()?.removeItem(LOGGED_IN_STORAGE_KEY);
}
