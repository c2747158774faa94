/** Login and session messages, exactly as in spec 000 §8. */
export const LOGIN_MESSAGES = {
  invalidTwoFactorCode: 'Invalid 2FA code',
  networkError: 'Network error. Please check your connection.',
  invalidCredentials: 'Invalid credentials',
  serverError: 'Server error. Please try again later.',
  loginFailed: 'Login failed',
  success: 'Login successful!',
  twoFactorRequired: 'Two-factor authentication required. Please enter your 2FA code.',
  sessionExpired: 'Session expired. Please log in again.',
} as const;
