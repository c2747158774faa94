import { useState, type FormEvent } from 'react';
import {
  Alert,
  Badge,
  Button,
  Code,
  Group,
  Image,
  Loader,
  Stack,
  Text,
  TextInput,
} from '@mantine/core';
import { IconShieldCheck, IconShieldOff } from '@tabler/icons-react';
import { TOTP_DIGITS, TotpCode, type TwoFactorSetupResponse } from '@adam/contracts';
import { isApiError } from '../../api/client';
import { PageHeader } from '../../components/PageHeader';
import { SettingsCard } from '../../components/SettingsCard';
import { toast } from '../../layout/toasts';
import { PasswordChangeForm } from '../../session/PasswordChangeForm';
import {
  useCurrentUser,
  useDisableTwoFactor,
  useEnableTwoFactor,
  useSetupTwoFactor,
} from '../../session/auth.api';

function PasswordSection() {
  return (
    <SettingsCard title="Change Password" description="At least 8 characters.">
      <PasswordChangeForm
        currentLabel="Current Password"
        currentName="Current password"
        maw={420}
      />
    </SettingsCard>
  );
}

function CodeInput({
  value,
  onChange,
  error,
}: {
  value: string;
  onChange: (value: string) => void;
  error?: string;
}) {
  return (
    <TextInput
      label="Authentication Code"
      placeholder="123456"
      inputMode="numeric"
      autoComplete="one-time-code"
      maxLength={TOTP_DIGITS}
      value={value}
      onChange={(e) => onChange(e.currentTarget.value.replace(/\D/g, ''))}
      error={error}
      maw={200}
    />
  );
}

function codeError(code: string): string | undefined {
  return TotpCode.safeParse(code).success ? undefined : 'Enter the 6-digit code';
}

function EnableTwoFactor() {
  const setup = useSetupTwoFactor();
  const enable = useEnableTwoFactor();
  const [secret, setSecret] = useState<TwoFactorSetupResponse | null>(null);
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | undefined>();

  if (!secret) {
    return (
      <Group>
        <Button
          leftSection={<IconShieldCheck size={16} />}
          loading={setup.isPending}
          onClick={() => setup.mutate(undefined, { onSuccess: setSecret })}
        >
          Enable two-factor authentication
        </Button>
      </Group>
    );
  }

  const confirm = (event: FormEvent) => {
    event.preventDefault();
    const invalid = codeError(code);
    setError(invalid);
    if (invalid) return;
    enable.mutate(code, {
      onSuccess: () => toast.success('Two-factor authentication enabled'),
      onError: (e) => setError(isApiError(e) ? e.message : undefined),
    });
  };

  return (
    <form onSubmit={confirm} noValidate>
      <Stack gap="sm">
        <Text size="sm">
          Scan this QR code with an authenticator app, or enter the secret by hand, then type the
          6-digit code it shows.
        </Text>
        <Group align="flex-start" gap="xl">
          <Image
            src={secret.qr}
            alt="Two-factor authentication QR code"
            w={180}
            h={180}
            radius="md"
            bg="white"
            p={6}
          />
          <Stack gap="xs">
            <Text size="xs" c="dimmed">
              Secret
            </Text>
            <Code fz="sm" style={{ wordBreak: 'break-all' }} data-testid="totp-secret">
              {secret.secret}
            </Code>
            <CodeInput value={code} onChange={setCode} error={error} />
            <Group gap="xs">
              <Button type="submit" loading={enable.isPending}>
                Confirm and enable
              </Button>
              <Button variant="default" onClick={() => setSecret(null)}>
                Cancel
              </Button>
            </Group>
          </Stack>
        </Group>
      </Stack>
    </form>
  );
}

function DisableTwoFactor() {
  const disable = useDisableTwoFactor();
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | undefined>();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const invalid = codeError(code);
    setError(invalid);
    if (invalid) return;
    disable.mutate(code, {
      onSuccess: () => toast.success('Two-factor authentication disabled'),
      onError: (e) => setError(isApiError(e) ? e.message : undefined),
    });
  };

  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="sm">
        <Text size="sm">Enter a current code from your authenticator app to turn it off.</Text>
        <CodeInput value={code} onChange={setCode} error={error} />
        <Group>
          <Button
            type="submit"
            color="red"
            variant="light"
            loading={disable.isPending}
            leftSection={<IconShieldOff size={16} />}
          >
            Disable two-factor authentication
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

function TwoFactorSection() {
  const { data: user, isLoading, isError } = useCurrentUser();
  const enabled = user?.totp_enabled === true;
  return (
    <SettingsCard
      title="Two-Factor Authentication"
      description="A code from an authenticator app is asked at every login."
    >
      {isLoading ? (
        <Loader size="sm" />
      ) : isError || !user ? (
        <Alert color="red" variant="light">
          The two-factor status could not be loaded.
        </Alert>
      ) : (
        <Stack gap="md">
          <Group gap="xs">
            <Badge color={enabled ? 'teal' : 'gray'} variant="light">
              {enabled ? 'On' : 'Off'}
            </Badge>
            <Text size="sm">
              {enabled
                ? 'Two-factor authentication is enabled.'
                : 'Two-factor authentication is disabled.'}
            </Text>
          </Group>
          {enabled ? <DisableTwoFactor /> : <EnableTwoFactor />}
        </Stack>
      )}
    </SettingsCard>
  );
}

/** Security: change password and two-factor authentication (status from GET /auth/me). */
export function SecuritySettingsScreen() {
  return (
    <Stack gap="lg" maw={880}>
      <PageHeader title="Security" description="Password and two-factor authentication." />
      <PasswordSection />
      <TwoFactorSection />
    </Stack>
  );
}
