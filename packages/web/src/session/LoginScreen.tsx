import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import {
  Alert,
  Box,
  Button,
  Center,
  Paper,
  PasswordInput,
  Stack,
  Text,
  TextInput,
  ThemeIcon,
  Title,
} from '@mantine/core';
import { IconInfoCircle, IconLock, IconMail, IconShieldLock } from '@tabler/icons-react';
import { LoginRequest, TOTP_DIGITS, TotpCode } from '@adam/contracts';
import { isApiError } from '../api/client';
import { usePublicConfig } from './config.api';
import { tabPath } from '../navigation/tabRegistry';
import { toast } from '../layout/toasts';
import { useLogin } from './auth.api';
import { LOGIN_MESSAGES } from './messages';
import { useSession } from './useSession';

interface FieldErrors {
  email?: string;
  password?: string;
  totp_code?: string;
}

const Email = LoginRequest.shape.email;

function validate(email: string, password: string, code: string, codeShown: boolean) {
  const errors: FieldErrors = {};
  if (!email.trim()) errors.email = 'Email is required';
  else if (!Email.safeParse(email).success) errors.email = 'Please enter a valid email';
  if (!password) errors.password = 'Password is required';
  if (codeShown) {
    if (!code.trim()) errors.totp_code = '2FA code is required';
    else if (!TotpCode.safeParse(code).success) errors.totp_code = '2FA code must be 6 digits';
  }
  return errors;
}

/** The toast for a failed login (spec 000 §8). */
function loginErrorMessage(error: unknown, codeShown: boolean): string {
  if (!isApiError(error)) return LOGIN_MESSAGES.loginFailed;
  if (error.status === 401 && codeShown) return LOGIN_MESSAGES.invalidTwoFactorCode;
  if (error.status === 0) return LOGIN_MESSAGES.networkError;
  if (error.status === 401) return LOGIN_MESSAGES.invalidCredentials;
  if (error.status >= 500) return LOGIN_MESSAGES.serverError;
  // The server's own text (e.g. a 429's "try again in 30 s"), else the generic message.
  const detail =
    error.details && typeof error.details === 'object' && 'detail' in error.details
      ? (error.details as { detail: unknown }).detail
      : null;
  return typeof detail === 'string' && detail ? detail : LOGIN_MESSAGES.loginFailed;
}

export function LoginScreen() {
  const navigate = useNavigate();
  const { completeLogin } = useSession();
  const publicConfig = usePublicConfig();
  const login = useLogin();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [codeShown, setCodeShown] = useState(false);
  const [errors, setErrors] = useState<FieldErrors>({});

  const defaults = publicConfig.data?.default_credentials_in_use
    ? publicConfig.data.default_credentials
    : null;

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    const found = validate(email, password, code, codeShown);
    setErrors(found);
    if (Object.keys(found).length > 0) return;

    try {
      const answer = await login.mutateAsync({
        email: email.trim(),
        password,
        ...(codeShown ? { totp_code: code.trim() } : {}),
      });
      if (answer.requires_2fa && !answer.api_key) {
        setCodeShown(true);
        toast.info(LOGIN_MESSAGES.twoFactorRequired);
        return;
      }
      if (!answer.api_key || !answer.user) {
        toast.error(LOGIN_MESSAGES.loginFailed);
        return;
      }
      completeLogin(answer.api_key, answer.user);
      toast.success(LOGIN_MESSAGES.success);
      navigate(tabPath('overview'), { replace: true });
    } catch (error) {
      toast.error(loginErrorMessage(error, codeShown));
    }
  }

  return (
    <Box
      mih="100vh"
      style={{
        background:
          'radial-gradient(circle at 20% 10%, rgba(76,110,245,0.25), transparent 45%), ' +
          'radial-gradient(circle at 85% 90%, rgba(21,170,191,0.18), transparent 40%), ' +
          'var(--mantine-color-body)',
      }}
    >
      <Center mih="100vh" p="md">
        <Paper withBorder shadow="xl" radius="lg" p={36} w="100%" maw={420}>
          <Stack gap="lg">
            <Stack gap={6} align="center">
              <ThemeIcon
                size={56}
                radius="lg"
                variant="gradient"
                gradient={{ from: 'indigo', to: 'cyan', deg: 135 }}
              >
                <Text fw={800} fz={28} c="white">
                  A
                </Text>
              </ThemeIcon>
              <Title order={2} ta="center">
                ADAM Control Center
              </Title>
              <Text c="dimmed" size="sm" ta="center">
                Sign in to the administration console
              </Text>
            </Stack>

            <form onSubmit={onSubmit} noValidate aria-label="Login">
              <Stack gap="md">
                <TextInput
                  label="Email"
                  type="email"
                  autoComplete="username"
                  placeholder="admin@example.com"
                  leftSection={<IconMail size={16} />}
                  value={email}
                  onChange={(e) => setEmail(e.currentTarget.value)}
                  error={errors.email}
                />
                <PasswordInput
                  label="Password"
                  autoComplete="current-password"
                  placeholder="Your password"
                  leftSection={<IconLock size={16} />}
                  value={password}
                  onChange={(e) => setPassword(e.currentTarget.value)}
                  error={errors.password}
                />
                {codeShown ? (
                  <TextInput
                    label="2FA Code"
                    placeholder="123456"
                    inputMode="numeric"
                    autoComplete="one-time-code"
                    maxLength={TOTP_DIGITS}
                    leftSection={<IconShieldLock size={16} />}
                    value={code}
                    onChange={(e) => setCode(e.currentTarget.value.replace(/\D/g, ''))}
                    error={errors.totp_code}
                    autoFocus
                  />
                ) : null}
                <Button type="submit" size="md" fullWidth loading={login.isPending} mt="xs">
                  Access Control Center
                </Button>
              </Stack>
            </form>

            {defaults ? (
              <Alert variant="light" color="yellow" icon={<IconInfoCircle size={18} />} p="xs">
                <Text size="sm">
                  Default credentials: {defaults.email} / {defaults.password}
                </Text>
              </Alert>
            ) : null}
          </Stack>
        </Paper>
      </Center>
    </Box>
  );
}
