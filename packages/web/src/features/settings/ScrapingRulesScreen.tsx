import { useEffect, useRef, useState, type FormEvent } from 'react';
import {
  ActionIcon,
  Alert,
  Badge,
  Button,
  Code,
  Group,
  Paper,
  Select,
  Stack,
  Switch,
  Table,
  Text,
  TextInput,
  Title,
  Tooltip,
} from '@mantine/core';
import {
  IconCheck,
  IconInfoCircle,
  IconPencil,
  IconPlus,
  IconTrash,
  IconX,
} from '@tabler/icons-react';
import { useSearchParams } from 'react-router';
import { SCRAPING_MODES, type ScrapingRule } from '@adam/contracts';
import { isApiError } from '../../api/client';
import { confirmAction } from '../../components/ConfirmDialog';
import { PageHeader } from '../../components/PageHeader';
import { EmptyState, ErrorState, LoadingState } from '../../components/QueryState';
import { toast } from '../../layout/toasts';
import { RULE_MESSAGES, withDetail } from './messages';
import {
  useCreateScrapingRule,
  useDeleteScrapingRule,
  useScrapingRules,
  useUpdateScrapingRule,
} from './settings.api';
import { DateTime } from '../../components/DateTime';

const MODE_OPTIONS = SCRAPING_MODES.map((mode) => ({ value: mode, label: mode }));
const MODE_COLOR: Record<string, string> = { allow: 'teal', deny: 'red', selector: 'blue' };

/** The form's target as the wire wants it: an empty target is sent as null (spec 002 §5). */
export const targetOrNull = (target: string): string | null => target.trim() || null;

/**
 * The host a rule is keyed by, as the server normalises it (lower case, no scheme, path, port
 * or www.), so ?domain=https://www.Example.org/x still finds the example.org rule.
 */
export function ruleDomain(input: string): string {
  let s = input.trim().toLowerCase();
  s = s.replace(/^[a-z][a-z0-9+.-]*:\/\//, '');
  s = s.split(/[/?#\\]/)[0] ?? '';
  s = s.slice(s.lastIndexOf('@') + 1);
  s = s.replace(/:\d*$/, '').replace(/\.$/, '');
  return s.startsWith('www.') ? s.slice(4) : s;
}

interface RuleFields {
  domain: string;
  mode: string;
  target: string;
}
type FieldErrors = Partial<Record<keyof RuleFields, string>>;

/** The checks the server makes too, so the operator sees them before a round trip. */
function checkFields(fields: RuleFields): FieldErrors {
  const errors: FieldErrors = {};
  if (!fields.domain.trim()) errors.domain = 'Domain is required';
  if (fields.mode === 'selector' && !fields.target.trim()) {
    errors.target = 'A selector rule needs a target CSS selector';
  }
  return errors;
}

function serverFieldErrors(error: unknown): FieldErrors {
  if (!isApiError(error)) return {};
  return {
    domain: error.fieldError('domain'),
    mode: error.fieldError('mode'),
    target: error.fieldError('target'),
  };
}

const detailOf = (error: unknown) => (error instanceof Error ? error.message : null);

function AddRuleForm({ initialDomain }: { initialDomain: string }) {
  const create = useCreateScrapingRule();
  const [fields, setFields] = useState<RuleFields>({
    domain: initialDomain,
    mode: 'allow',
    target: '',
  });
  const [enabled, setEnabled] = useState(true);
  const [errors, setErrors] = useState<FieldErrors>({});

  const set = (field: keyof RuleFields, value: string) => {
    setFields((current) => ({ ...current, [field]: value }));
    setErrors((current) => ({ ...current, [field]: undefined }));
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const found = checkFields(fields);
    setErrors(found);
    if (Object.values(found).some(Boolean)) return;
    create.mutate(
      {
        domain: fields.domain.trim(),
        mode: fields.mode,
        target: targetOrNull(fields.target),
        enabled,
      },
      {
        onSuccess: (rule) => {
          toast.success(`Rule added for ${rule.domain}`);
          setFields({ domain: '', mode: 'allow', target: '' });
          setEnabled(true);
        },
        onError: (error) => {
          toast.error(withDetail(RULE_MESSAGES.addFailed, detailOf(error)));
          setErrors(serverFieldErrors(error));
        },
      },
    );
  };

  return (
    <Paper withBorder radius="md" p="md">
      <form onSubmit={submit} noValidate aria-label="Add scraping rule">
        <Stack gap="sm">
          <Title order={4}>Add rule</Title>
          <Group align="flex-start" gap="sm" wrap="wrap">
            <TextInput
              label="Domain"
              placeholder="example.org"
              required
              value={fields.domain}
              onChange={(e) => set('domain', e.currentTarget.value)}
              error={errors.domain}
              w={260}
            />
            <Select
              label="Mode"
              data={MODE_OPTIONS}
              value={fields.mode}
              onChange={(value) => set('mode', value ?? 'allow')}
              allowDeselect={false}
              error={errors.mode}
              w={140}
            />
            <TextInput
              label="Target"
              placeholder={
                fields.mode === 'selector' ? 'CSS selector, e.g. article .content' : 'optional'
              }
              value={fields.target}
              onChange={(e) => set('target', e.currentTarget.value)}
              error={errors.target}
              w={300}
            />
            <Switch
              label="Enabled"
              checked={enabled}
              onChange={(e) => setEnabled(e.currentTarget.checked)}
              mt={32}
            />
            <Button
              type="submit"
              leftSection={<IconPlus size={16} />}
              loading={create.isPending}
              mt={25}
            >
              Add rule
            </Button>
          </Group>
          <Text size="xs" c="dimmed">
            allow: fetch pages of the domain · deny: never fetch them · selector: keep only the
            elements the target CSS selector matches.
          </Text>
        </Stack>
      </form>
    </Paper>
  );
}

function RuleRow({ rule, highlighted }: { rule: ScrapingRule; highlighted: boolean }) {
  const update = useUpdateScrapingRule();
  const remove = useDeleteScrapingRule();
  const [editing, setEditing] = useState(false);
  const [fields, setFields] = useState<RuleFields>({ domain: '', mode: 'allow', target: '' });
  const [errors, setErrors] = useState<FieldErrors>({});
  const rowRef = useRef<HTMLTableRowElement>(null);

  useEffect(() => {
    if (highlighted) rowRef.current?.scrollIntoView({ block: 'center', behavior: 'smooth' });
  }, [highlighted]);

  const startEdit = () => {
    setFields({ domain: rule.domain, mode: rule.mode, target: rule.target ?? '' });
    setErrors({});
    setEditing(true);
  };

  const set = (field: keyof RuleFields, value: string) => {
    setFields((current) => ({ ...current, [field]: value }));
    setErrors((current) => ({ ...current, [field]: undefined }));
  };

  const save = () => {
    const found = checkFields(fields);
    setErrors(found);
    if (Object.values(found).some(Boolean)) return;
    update.mutate(
      {
        id: rule.id,
        change: {
          domain: fields.domain.trim(),
          mode: fields.mode,
          target: targetOrNull(fields.target),
        },
      },
      {
        onSuccess: (saved) => {
          toast.success(`Rule for ${saved.domain} updated`);
          setEditing(false);
        },
        onError: (error) => {
          toast.error(withDetail(RULE_MESSAGES.updateFailed, detailOf(error)));
          setErrors(serverFieldErrors(error));
        },
      },
    );
  };

  const toggle = (enabled: boolean) =>
    update.mutate(
      { id: rule.id, change: { enabled } },
      {
        onSuccess: (saved) =>
          toast.success(`Rule for ${saved.domain} ${saved.enabled ? 'enabled' : 'disabled'}`),
        onError: (error) => toast.error(withDetail(RULE_MESSAGES.updateFailed, detailOf(error))),
      },
    );

  const askDelete = () =>
    confirmAction({
      title: 'Delete scraping rule',
      message: `Delete the rule for ${rule.domain}? Pages of this domain will be fetched with the default behaviour.`,
      confirmLabel: 'Delete',
      danger: true,
      onConfirm: () =>
        remove.mutate(rule.id, {
          onSuccess: () => toast.success(`Rule for ${rule.domain} deleted`),
          onError: (error) => toast.error(withDetail(RULE_MESSAGES.deleteFailed, detailOf(error))),
        }),
    });

  return (
    <Table.Tr
      ref={rowRef}
      data-domain={rule.domain}
      data-highlighted={highlighted || undefined}
      aria-current={highlighted ? 'true' : undefined}
      style={
        highlighted
          ? {
              backgroundColor: 'var(--mantine-color-yellow-light)',
              boxShadow: 'inset 3px 0 0 var(--mantine-color-yellow-filled)',
            }
          : undefined
      }
    >
      {editing ? (
        <>
          <Table.Td>
            <TextInput
              size="xs"
              aria-label="Domain"
              value={fields.domain}
              onChange={(e) => set('domain', e.currentTarget.value)}
              error={errors.domain}
            />
          </Table.Td>
          <Table.Td>
            <Select
              size="xs"
              aria-label="Mode"
              data={MODE_OPTIONS}
              value={fields.mode}
              onChange={(value) => set('mode', value ?? 'allow')}
              allowDeselect={false}
              error={errors.mode}
            />
          </Table.Td>
          <Table.Td>
            <TextInput
              size="xs"
              aria-label="Target"
              placeholder="none"
              value={fields.target}
              onChange={(e) => set('target', e.currentTarget.value)}
              error={errors.target}
            />
          </Table.Td>
        </>
      ) : (
        <>
          <Table.Td>
            <Text size="sm" fw={500} truncate="end" title={rule.domain}>
              {rule.domain}
            </Text>
          </Table.Td>
          <Table.Td>
            <Badge variant="light" color={MODE_COLOR[rule.mode] ?? 'gray'}>
              {rule.mode}
            </Badge>
          </Table.Td>
          <Table.Td>
            {rule.target ? (
              <Code
                title={rule.target}
                display="inline-block"
                maw="100%"
                style={{ overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' }}
              >
                {rule.target}
              </Code>
            ) : (
              <Text size="sm" c="dimmed">
                —
              </Text>
            )}
          </Table.Td>
        </>
      )}
      <Table.Td>
        <Switch
          aria-label={`Enabled ${rule.domain}`}
          checked={rule.enabled}
          onChange={(e) => toggle(e.currentTarget.checked)}
        />
      </Table.Td>
      <Table.Td>
        <Text size="sm" c="dimmed" className="tabular-nums">
          <DateTime value={rule.updated_at} />
        </Text>
      </Table.Td>
      <Table.Td>
        <Group gap={4} justify="flex-end" wrap="nowrap">
          {editing ? (
            <>
              <Button
                size="xs"
                leftSection={<IconCheck size={14} />}
                onClick={save}
                loading={update.isPending}
              >
                Save
              </Button>
              <Button
                size="xs"
                variant="default"
                leftSection={<IconX size={14} />}
                onClick={() => setEditing(false)}
              >
                Cancel
              </Button>
            </>
          ) : (
            <>
              <Tooltip label="Edit">
                <ActionIcon variant="subtle" aria-label={`Edit ${rule.domain}`} onClick={startEdit}>
                  <IconPencil size={16} />
                </ActionIcon>
              </Tooltip>
              <Tooltip label="Delete">
                <ActionIcon
                  variant="subtle"
                  color="red"
                  aria-label={`Delete ${rule.domain}`}
                  onClick={askDelete}
                  loading={remove.isPending}
                >
                  <IconTrash size={16} />
                </ActionIcon>
              </Tooltip>
            </>
          )}
        </Group>
      </Table.Td>
    </Table.Tr>
  );
}

function RulesTable({ rules, highlight }: { rules: ScrapingRule[]; highlight: string }) {
  return (
    <Table.ScrollContainer minWidth={760}>
      <Table
        striped
        highlightOnHover
        stickyHeader
        layout="fixed"
        verticalSpacing="xs"
        aria-label="Scraping rules"
      >
        <Table.Thead>
          <Table.Tr>
            <Table.Th w="26%">Domain</Table.Th>
            <Table.Th w={140}>Mode</Table.Th>
            <Table.Th>Target</Table.Th>
            <Table.Th w={90}>Enabled</Table.Th>
            <Table.Th w={170}>Updated</Table.Th>
            <Table.Th w={220} aria-label="Actions" />
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rules.map((rule) => (
            <RuleRow
              key={rule.id}
              rule={rule}
              highlighted={!!highlight && rule.domain === highlight}
            />
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

/** Scraping rules (spec 002 §2, §3, §4): one rule per domain, edited inline, enabled saves at once. */
export function ScrapingRulesScreen() {
  const [params] = useSearchParams();
  const wanted = params.get('domain') ?? '';
  const highlight = wanted ? ruleDomain(wanted) : '';
  const { data: rules, isLoading, isError, error, refetch, errorUpdatedAt } = useScrapingRules();

  useEffect(() => {
    // One toast per failed load (errorUpdatedAt changes once per failure), not per render.
    if (isError)
      toast.error(withDetail(RULE_MESSAGES.loadFailed, detailOf(error)), { dedupe: true });
  }, [isError, error, errorUpdatedAt]);

  const sorted = rules ? [...rules].sort((a, b) => a.domain.localeCompare(b.domain)) : [];
  const missing = !!highlight && !!rules && !rules.some((r) => r.domain === highlight);

  return (
    <Stack gap="lg">
      <PageHeader
        title="Scraping Rules"
        description="Per-domain rules the URL fetcher applies: allow or deny a domain, or keep only what a CSS selector matches."
      />
      <AddRuleForm key={missing ? highlight : ''} initialDomain={missing ? highlight : ''} />
      {missing ? (
        <Alert color="blue" variant="light" icon={<IconInfoCircle size={18} />}>
          No rule exists for <b>{highlight}</b> yet: the form above is ready to add one.
        </Alert>
      ) : null}
      <Paper withBorder radius="md" p="md">
        <Stack gap="sm">
          <Group justify="space-between">
            <Title order={4}>Rules</Title>
            {rules ? (
              <Text size="sm" c="dimmed" className="tabular-nums">
                {rules.length} {rules.length === 1 ? 'rule' : 'rules'} ·{' '}
                {rules.filter((r) => r.enabled).length} enabled
              </Text>
            ) : null}
          </Group>
          {isLoading ? (
            <LoadingState rows={4} label="Loading rules" />
          ) : isError ? (
            <ErrorState
              title={RULE_MESSAGES.loadFailed}
              message={detailOf(error)}
              onRetry={() => void refetch()}
            />
          ) : sorted.length === 0 ? (
            <EmptyState
              title="No scraping rules"
              description="Every domain is fetched with the default extraction. Add a rule above to allow, deny or narrow a domain."
            />
          ) : (
            <RulesTable rules={sorted} highlight={highlight} />
          )}
        </Stack>
      </Paper>
    </Stack>
  );
}
