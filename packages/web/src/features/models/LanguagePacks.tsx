import { useState } from 'react';
import {
  Alert,
  Badge,
  Button,
  Group,
  Modal,
  Paper,
  Progress,
  SimpleGrid,
  Stack,
  Text,
  Title,
  UnstyledButton,
} from '@mantine/core';
import { IconAlertTriangle, IconTrash } from '@tabler/icons-react';
import type { LanguagePack } from '@adam/contracts';
import { ErrorState, LoadingState } from '../../components/QueryState';
import { toast } from '../../layout/toasts';
import { formatBytes } from '../../lib/format';
import { FALLBACK_REFRESH_MS } from './constants';
import { MODEL_MESSAGES, packVersionWarning } from './messages';
import {
  modelKeys,
  reasonOf,
  useLanguagePacks,
  useModelProgress,
  useUninstallLanguagePack,
} from './models.api';
import { STATUS_COLOR, isInstalled, statusLabel } from './modelRules';
import { useLanguagePackInstall } from './useLanguagePackInstall';
import { useQueryClient } from '@tanstack/react-query';

const packTitle = (pack: LanguagePack) => pack.name || pack.code;
const sizeText = (size: number) => (size > 0 ? formatBytes(size) : '-');

function VersionWarning({ pack }: { pack: LanguagePack }) {
  if (pack.version === pack.required_version) return null;
  return (
    <Alert color="yellow" variant="light" icon={<IconAlertTriangle size={16} />} p="xs">
      <Text size="sm" data-testid="pack-version-warning">
        {packVersionWarning(pack.version, pack.required_version)}
      </Text>
    </Alert>
  );
}

/** Install Language Pack (spec 001 §2.1): name, warning, progress to one decimal, Cancel/Close. */
function InstallPackBody({ pack, onClose }: { pack: LanguagePack; onClose: () => void }) {
  const { installing, error, install } = useLanguagePackInstall(pack, onClose);
  const progress = useModelProgress(pack.model_id);
  const value = Math.min(100, Math.max(0, progress?.progress ?? 0));
  return (
    <Stack gap="sm">
      <Group gap="sm">
        <Text fz={32} aria-hidden>
          {pack.flag}
        </Text>
        <Stack gap={0}>
          <Text fw={700} data-testid="pack-name">
            {packTitle(pack)}
          </Text>
          <Text size="xs" c="dimmed" className="tabular-nums">
            Version {pack.version} · {sizeText(pack.size)}
          </Text>
        </Stack>
      </Group>
      {pack.description ? (
        <Text size="sm" c="dimmed">
          {pack.description}
        </Text>
      ) : null}
      <VersionWarning pack={pack} />
      {installing ? (
        <Stack gap={4} aria-label={`Install progress of ${packTitle(pack)}`}>
          <Group justify="space-between" wrap="nowrap">
            <Text size="xs" c="dimmed" lineClamp={1}>
              {progress?.message ?? ''}
            </Text>
            <Text size="sm" fw={600} className="tabular-nums" data-testid="pack-progress">
              {value.toFixed(1)}%
            </Text>
          </Group>
          <Progress value={value} striped animated radius="xl" aria-hidden />
        </Stack>
      ) : null}
      {error ? (
        <Alert color="red" variant="light" p="xs">
          <Text size="sm">{error}</Text>
        </Alert>
      ) : null}
      <Group justify="flex-end" mt="xs">
        <Button variant="default" onClick={onClose}>
          {installing ? 'Close' : 'Cancel'}
        </Button>
        {installing ? null : <Button onClick={() => void install()}>Install</Button>}
      </Group>
    </Stack>
  );
}

/** An installed pack: what it is, and its uninstall (a built-in pack stays). */
function PackDetailsBody({
  pack,
  builtin,
  onClose,
}: {
  pack: LanguagePack;
  builtin: boolean;
  onClose: () => void;
}) {
  const queryClient = useQueryClient();
  const uninstall = useUninstallLanguagePack();
  const run = () =>
    uninstall.mutate(pack, {
      onSuccess: (result) => {
        toast.success(`Language pack ${pack.code} uninstalled`);
        // No progress phase: the server may still be removing files; look again shortly.
        if (result.progress === undefined) {
          setTimeout(() => {
            for (const queryKey of [modelKeys.languagePacks, modelKeys.list]) {
              void queryClient.invalidateQueries({ queryKey });
            }
          }, FALLBACK_REFRESH_MS);
        }
        onClose();
      },
      onError: (error) =>
        toast.error(MODEL_MESSAGES.uninstallFailed(packTitle(pack), reasonOf(error))),
    });
  return (
    <Stack gap="sm">
      <Group gap="sm">
        <Text fz={32} aria-hidden>
          {pack.flag}
        </Text>
        <Stack gap={0}>
          <Text fw={700}>{packTitle(pack)}</Text>
          <Text size="xs" c="dimmed" className="tabular-nums">
            Version {pack.version} (required {pack.required_version}) · {sizeText(pack.size)}
          </Text>
        </Stack>
        <Badge variant="light" color={STATUS_COLOR[pack.status]} ml="auto">
          {statusLabel(pack.status)}
        </Badge>
      </Group>
      {pack.description ? <Text size="sm">{pack.description}</Text> : null}
      <VersionWarning pack={pack} />
      {builtin ? (
        <Text size="sm" c="dimmed">
          This pack ships with ADAM and cannot be uninstalled.
        </Text>
      ) : null}
      <Group justify="flex-end" mt="xs">
        <Button variant="default" onClick={onClose}>
          Close
        </Button>
        <Button
          color="red"
          leftSection={<IconTrash size={14} />}
          onClick={run}
          loading={uninstall.isPending}
          disabled={builtin}
        >
          Uninstall
        </Button>
      </Group>
    </Stack>
  );
}

function PackTile({ pack, onOpen }: { pack: LanguagePack; onOpen: (pack: LanguagePack) => void }) {
  return (
    <UnstyledButton onClick={() => onOpen(pack)} aria-label={`${packTitle(pack)} language pack`}>
      <Paper withBorder radius="md" p="sm" h="100%">
        <Group gap="sm" wrap="nowrap" align="flex-start">
          <Text fz={28} lh={1} aria-hidden>
            {pack.flag}
          </Text>
          <Stack gap={2} style={{ minWidth: 0 }}>
            <Text fw={600} size="sm">
              {packTitle(pack)}
            </Text>
            <Text size="xs" c="dimmed" className="tabular-nums">
              v{pack.version} · {sizeText(pack.size)}
            </Text>
            <Badge size="xs" variant="light" color={STATUS_COLOR[pack.status]}>
              {statusLabel(pack.status)}
            </Badge>
          </Stack>
        </Group>
      </Paper>
    </UnstyledButton>
  );
}

/**
 * Available Language Packs (spec 001 §2.2): a grid with flag, name, version and size. An
 * installed pack opens its uninstall/view dialog, any other the install dialog.
 */
export function LanguagePacksPanel({ builtinModelIds }: { builtinModelIds: ReadonlySet<number> }) {
  const { data: packs, isLoading, isError, error, refetch } = useLanguagePacks();
  const [open, setOpen] = useState<LanguagePack | null>(null);
  const close = () => setOpen(null);
  const installed = open !== null && (open.installed || isInstalled(open.status));

  return (
    <Paper withBorder radius="md" p="md">
      <Title order={4} mb="sm">
        Available Language Packs
      </Title>
      {isLoading ? (
        <LoadingState rows={2} label="Loading language packs" />
      ) : isError ? (
        <ErrorState
          title="Could not load the language packs"
          message={error.message}
          onRetry={() => void refetch()}
        />
      ) : (
        <SimpleGrid cols={{ base: 2, sm: 3, md: 5 }} spacing="sm">
          {(packs ?? []).map((pack) => (
            <PackTile key={pack.code} pack={pack} onOpen={setOpen} />
          ))}
        </SimpleGrid>
      )}
      <Modal
        opened={open !== null}
        onClose={close}
        title={installed ? 'Language Pack' : 'Install Language Pack'}
        centered
      >
        {open === null ? null : installed ? (
          <PackDetailsBody
            key={open.code}
            pack={open}
            builtin={builtinModelIds.has(open.model_id)}
            onClose={close}
          />
        ) : (
          <InstallPackBody key={open.code} pack={open} onClose={close} />
        )}
      </Modal>
    </Paper>
  );
}
