import { z } from 'zod';
import { Role } from './users.js';

/** The login cookie that carries the API key for the console (HttpOnly, SameSite=Strict). */
export const API_KEY_COOKIE = 'adam_api_key';
/**
 * The header the console sends on every call, and its value. A page on another origin cannot
 * add it to a request without a CORS preflight, which the server never grants, so a change
 * authenticated by the cookie alone must carry it.
 */
export const CONSOLE_HEADER = 'X-Requested-With';
export const CONSOLE_HEADER_VALUE = 'adam-console';

export const TOTP_DIGITS = 6;
export const TOTP_PERIOD_SECONDS = 30;

export const TotpCode = z
  .string()
  .trim()
  .regex(new RegExp(`^\\d{${TOTP_DIGITS}}$`), `must be a ${TOTP_DIGITS}-digit code`);
export type TotpCode = z.infer<typeof TotpCode>;

export const User = z.object({
  email: z.string(),
  name: z.string(),
  totp_enabled: z.boolean(),
  role: Role,
  /** Set on a user created with a one-time password: every call but the password change is refused. */
  must_change_password: z.boolean(),
});
export type User = z.infer<typeof User>;

export const LoginRequest = z.object({
  email: z.string().trim().email('must be a valid e-mail address'),
  password: z.string().min(1, 'is required'),
  totp_code: TotpCode.optional().nullable(),
});
export type LoginRequest = z.infer<typeof LoginRequest>;

export const LoginResponse = z.object({
  api_key: z.string().nullable(),
  user: User.nullable(),
  requires_2fa: z.boolean(),
  expires_at: z.string().nullable(),
});
export type LoginResponse = z.infer<typeof LoginResponse>;

export const RefreshResponse = z.object({
  api_key: z.string(),
  user: User,
  expires_at: z.string(),
});
export type RefreshResponse = z.infer<typeof RefreshResponse>;

export const ChangePasswordRequest = z.object({
  current_password: z.string().min(1, 'is required'),
  new_password: z.string().min(8, 'must be at least 8 characters').max(256),
});
export type ChangePasswordRequest = z.infer<typeof ChangePasswordRequest>;

export const TwoFactorSetupResponse = z.object({
  secret: z.string().describe('base32 secret'),
  otpauth_url: z.string(),
  qr: z.string().describe('PNG data URL of the otpauth QR code'),
});
export type TwoFactorSetupResponse = z.infer<typeof TwoFactorSetupResponse>;

export const TwoFactorCodeRequest = z.object({ code: TotpCode });
export type TwoFactorCodeRequest = z.infer<typeof TwoFactorCodeRequest>;

export const TwoFactorStatus = z.object({ totp_enabled: z.boolean() });
export type TwoFactorStatus = z.infer<typeof TwoFactorStatus>;

/** A realtime ticket's lifetime: long enough to open the socket right after asking for it. */
export const WS_TICKET_TTL_SECONDS = 30;

/**
 * A single-use ticket for the realtime socket (`?ticket=`), so the API key itself need not
 * appear in the socket's URL, where proxies and browser tools may record it.
 */
export const WsTicketResponse = z.object({
  ticket: z.string().describe('single use; valid for expires_in seconds'),
  expires_in: z.number().int().positive().describe('seconds'),
});
export type WsTicketResponse = z.infer<typeof WsTicketResponse>;
