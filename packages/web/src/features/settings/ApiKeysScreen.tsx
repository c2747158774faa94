import { useState, type FormEvent } from 'react';
import {
  Button,
  Code,
  Group,
  Modal,
  NumberInput,
  Select,
  Stack,
  Text,
  TextInput,
} from '@mantine/core';
import { IconKey, IconPlus } from '@tabler/icons-react';
import {
  API_KEY_MAX_DAYS,
  API_KEY_SCOPES,
  CreateApiKey,
  SCOPE_ROLE,
  roleAllows,
  type ApiKey,
  type ApiKeyScope,
  type CreatedApiKey,
} from '@adam/contracts';
import { isApiError } from '../../api/client';
import { confirmAction } from '../../components/ConfirmDialog';
import { OneTimeSecret } from '../../components/OneTimeSecret';
import { PageHeader } from '../../components/PageHeader';
import { QueryTable } from '../../components/QueryTable';
import { toast } from '../../layout/toasts';
import { useRole } from '../../session/useCan';
import { ApiKeyTable, SCOPE_LABELS } from './AccessTables';
import { useCreateApiKey, useOwnApiKeys, useRevokeOwnApiKey } from './access.api';

const DEFAULT_DAYS = 90;

const SCOPE_HINTS: Record<ApiKeyScope, string> = {
  read: 'Read: reads only, as a viewer',
  write: 'Write: also runs sources, jobs and maintenance, as an operator',
  admin: 'Admin: everything, as an administrator',
};

const reason = (error: unknown) => (isApiError(error) ? error.message : 'Unexpected error');

/** The scopes a user may give a key: never more than their own role. */
function useAllowedScopes(): ApiKeyScope[] {
  const role = useRole();
  return API_KEY_SCOPES.filter((scope) => roleAllows(role, SCOPE_ROLE[scope])).reverse();
}

interface FormErrors {
  name?: string;
  scope?: string;
  expires_in_days?: string;
}

const FIELD_NAMES: Record<keyof FormErrors, string> = {
  name: 'Name',
  scope: 'Scope',
  expires_in_days: 'Expiry',
};

/** The secret of a new key, shown this once with a copy button. */
function SecretOnce({ created, onDone }: { created: CreatedApiKey; onDone: () => void }) {
  return (
    <Stack gap="md">
      <OneTimeSecret
        label="API key secret"
        value={created.secret}
        warning="Copy this key now: it will not be shown again. ADAM keeps only a hash of it; if it is lost, revoke the key and create a new one."
      />
      <Text size="sm" c="dimmed">
        Programs send it in the <Code>X-API-Key</Code> header. Scope{' '}
        {SCOPE_LABELS[created.key.scope].toLowerCase()}, named “{created.key.name}”.
      </Text>
      <Group justify="flex-end">
        <Button onClick={onDone}>Done</Button>
      </Group>
    </Stack>
  );
}

/** The create form, then the secret, shown once. */
function CreateApiKeyModal({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const create = useCreateApiKey();
  const scopes = useAllowedScopes();
  const [name, setName] = useState('');
  const [scope, setScope] = useState<ApiKeyScope>('read');
  const [days, setDays] = useState<number | string>(DEFAULT_DAYS);
  const [errors, setErrors] = useState<FormErrors>({});
  const [created, setCreated] = useState<CreatedApiKey | null>(null);

  const close = () => {
    // The secret is gone once the dialog closes: the server never answers it again.
    setCreated(null);
    setName('');
    setScope('read');
    setDays(DEFAULT_DAYS);
    setErrors({});
    onClose();
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const parsed = CreateApiKey.safeParse({
      name,
      scope,
      expires_in_days: typeof days === 'number' ? days : Number.NaN,
    });
    if (!parsed.success) {
      const found: FormErrors = {};
      for (const issue of parsed.error.issues) {
        const field = issue.path[0] as keyof FormErrors;
        if (field in FIELD_NAMES)
          found[field] ??=
            field === 'expires_in_days' && typeof days !== 'number'
              ? 'Expiry is required'
              : `${FIELD_NAMES[field]} ${issue.message}`;
      }
      setErrors(found);
      return;
    }
    setErrors({});
    create.mutate(parsed.data, {
      onSuccess: setCreated,
      onError: (error) => {
        if (isApiError(error) && error.fieldErrors.length > 0) {
          setErrors({
            name: error.fieldError('name'),
            scope: error.fieldError('scope'),
            expires_in_days: error.fieldError('expires_in_days'),
          });
        }
        toast.error(`Could not create the API key: ${reason(error)}`);
      },
    });
  };

  return (
    <Modal
      opened={opened}
      onClose={close}
      title={created ? 'API key created' : 'Create API key'}
      centered
      size="lg"
      closeOnClickOutside={!created}
    >
      {created ? (
        <SecretOnce created={created} onDone={close} />
      ) : (
        <form onSubmit={submit} noValidate aria-label="Create API key">
          <Stack gap="sm">
            <TextInput
              label="Name"
              description="What the key is for, e.g. the program that uses it."
              required
              maxLength={100}
              value={name}
              onChange={(e) => setName(e.currentTarget.value)}
              error={errors.name}
            />
            <Select
              label="Scope"
              description="A key never does more than your own role allows."
              data={scopes.map((value) => ({ value, label: SCOPE_HINTS[value] }))}
              value={scope}
              onChange={(value) => value && setScope(value as ApiKeyScope)}
              allowDeselect={false}
              error={errors.scope}
            />
            <NumberInput
              label="Expires in (days)"
              description={`From 1 to ${API_KEY_MAX_DAYS} days.`}
              min={1}
              max={API_KEY_MAX_DAYS}
              allowDecimal={false}
              allowNegative={false}
              value={days}
              onChange={setDays}
              error={errors.expires_in_days}
              w={200}
            />
            <Group justify="flex-end" mt="xs">
              <Button variant="default" onClick={close}>
                Cancel
              </Button>
              <Button type="submit" loading={create.isPending} leftSection={<IconKey size={16} />}>
                Create key
              </Button>
            </Group>
          </Stack>
        </form>
      )}
    </Modal>
  );
}

/** Settings → API keys: the signed-in user's keys for programs. */
export function ApiKeysScreen() {
  const keys = useOwnApiKeys();
  const revoke = useRevokeOwnApiKey();
  const [creating, setCreating] = useState(false);

  const askRevoke = (key: ApiKey) =>
    confirmAction({
      title: 'Revoke API key',
      message: `Revoke “${key.name}” (${key.prefix}…)? Programs using it are refused at once and its open connections close.`,
      confirmLabel: 'Revoke',
      danger: true,
      onConfirm: () =>
        revoke.mutate(key.id, {
          onSuccess: () => toast.success(`API key “${key.name}” revoked`),
          onError: (error) => toast.error(`Could not revoke the API key: ${reason(error)}`),
        }),
    });

  return (
    <>
      <PageHeader
        title="API keys"
        description="Keys let programs call ADAM as you, limited to the key's scope. Each is shown once when created."
        actions={
          <Button leftSection={<IconPlus size={16} />} onClick={() => setCreating(true)}>
            Create API key
          </Button>
        }
      />
      <QueryTable
        query={keys}
        count={(data) => data.items.length}
        loading={{ rows: 4, label: 'Loading API keys' }}
        errorTitle="Could not load the API keys"
        empty={{
          title: 'No API keys',
          description: 'Create a key for each program that feeds or reads ADAM.',
        }}
      >
        {(data) => <ApiKeyTable keys={data.items} onRevoke={askRevoke} busy={revoke.isPending} />}
      </QueryTable>
      <CreateApiKeyModal opened={creating} onClose={() => setCreating(false)} />
    </>
  );
}
