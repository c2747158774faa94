import { useRef, useState, type FormEvent, type ReactNode } from 'react';
import {
  Alert,
  Anchor,
  Button,
  Grid,
  Group,
  Paper,
  Select,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { IconAlertTriangle, IconEraser, IconPencil, IconWorldDownload } from '@tabler/icons-react';
import type { FetchUrlResponse, ScrapingRule } from '@adam/contracts';
import { useOpenTab } from '../../navigation/useTabNavigation';
import { tabHref } from '../../navigation/tabRegistry';
import { PageHeader } from '../../components/PageHeader';
import { toast } from '../../layout/toasts';
import { formatNumber } from '../../lib/format';
import { useScrapingRules } from '../settings/settings.api';
import { AnalysisResults, AnalyzeForm } from './AnalyzePanel';
import { HtmlPreview } from './HtmlPreview';
import { PLAYGROUND_MESSAGES } from './messages';
import { ModelWarningBanner } from './ModelWarningBanner';
import { useFetchUrl } from './playground.api';
import { useAnalysis } from './useAnalysis';
import { domainOfInput, fetchUrlFailureText, ruleLabel, ruleUsed } from './urlFetch';

const AUTO_RULE = 'auto';

/** 'Auto rule', then the rules by domain; disabled ones (the server still tries them) apart. */
function ruleOptions(rules: ScrapingRule[] | undefined) {
  const option = (r: ScrapingRule) => ({ value: String(r.id), label: ruleLabel(r) });
  const sorted = [...(rules ?? [])].sort((a, b) => a.domain.localeCompare(b.domain));
  const enabled = sorted.filter((r) => r.enabled).map(option);
  const disabled = sorted.filter((r) => !r.enabled).map(option);
  return [
    { value: AUTO_RULE, label: PLAYGROUND_MESSAGES.autoRule },
    ...(disabled.length
      ? [
          { group: 'Rules', items: enabled },
          { group: 'Disabled rules', items: disabled },
        ]
      : enabled),
  ];
}

function InfoItem({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Text size="sm" span>
      <Text span c="dimmed">
        {label}:{' '}
      </Text>
      {children}
    </Text>
  );
}

function FetchInfo({ page, action }: { page: FetchUrlResponse; action: ReactNode }) {
  const rule = ruleUsed(page);
  const kept =
    page.original_length > 0 ? Math.round((page.clean_length / page.original_length) * 100) : null;
  return (
    <Stack gap={6}>
      <Group justify="space-between" wrap="nowrap" gap="md">
        <Text size="sm" fw={600} lineClamp={1} title={page.url ?? undefined}>
          {page.title || page.domain}
        </Text>
        {action}
      </Group>
      <Group gap="lg" aria-label="Fetch info" role="group">
        <InfoItem label="Domain">
          <Text span fw={500} data-testid="info-domain">
            {page.domain}
          </Text>
        </InfoItem>
        <InfoItem label="Original length">
          <Text span className="tabular-nums" data-testid="info-original-length">
            {formatNumber(page.original_length)}
          </Text>
        </InfoItem>
        <InfoItem label="Clean length">
          <Text span className="tabular-nums" data-testid="info-clean-length">
            {formatNumber(page.clean_length)}
          </Text>
          {kept !== null ? (
            <Text span c="dimmed" size="xs">
              {' '}
              ({kept}%)
            </Text>
          ) : null}
        </InfoItem>
        <InfoItem label="Rule">
          <Text span fw={rule.specific ? 600 : 400} data-testid="info-rule">
            {rule.text}
          </Text>
          {rule.matched ? (
            <Text span c="dimmed" size="xs">
              {' '}
              (matched {rule.matched}: default extraction)
            </Text>
          ) : null}
        </InfoItem>
      </Group>
      {page.url ? (
        <Text size="xs" c="dimmed" truncate="end">
          Fetched from {page.url}
        </Text>
      ) : null}
      {page.warnings?.length ? (
        <Alert color="yellow" variant="light" py="xs" icon={<IconAlertTriangle size={16} />}>
          {page.warnings.map((w) => (
            <Text size="sm" key={w}>
              {w}
            </Text>
          ))}
        </Alert>
      ) : null}
    </Stack>
  );
}

function EditRulesLink({ domain }: { domain: string }) {
  const openTab = useOpenTab();
  return (
    <Anchor
      href={tabHref('settings-scraping', { domain })}
      size="sm"
      style={{ flexShrink: 0 }}
      onClick={(event) => {
        // A plain click stays in the console's router; modified clicks open a new tab.
        if (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
        event.preventDefault();
        openTab('settings-scraping', { domain });
      }}
    >
      <Group gap={4} wrap="nowrap" component="span">
        <IconPencil size={14} />
        {PLAYGROUND_MESSAGES.editRules(domain)}
      </Group>
    </Anchor>
  );
}

/**
 * Playground URL (spec 001 §2.9, §5, §8): scrap a page under a scraping rule, see its raw HTML
 * inert, what the rule kept, and analyse the clean text.
 */
export function UrlPlaygroundScreen() {
  const rules = useScrapingRules();
  const fetchUrl = useFetchUrl();
  const analysis = useAnalysis();

  const [url, setUrl] = useState('');
  const [ruleId, setRuleId] = useState(AUTO_RULE);
  const [page, setPage] = useState<FetchUrlResponse | null>(null);
  const [failure, setFailure] = useState<{ text: string; domain: string | null } | null>(null);
  // A reset or a newer scrap makes an answer still in flight stale.
  const run = useRef(0);

  const scrap = async (event?: FormEvent) => {
    event?.preventDefault();
    const target = url.trim();
    if (!target) return;
    const current = ++run.current;
    setFailure(null);
    try {
      const answer = await fetchUrl.mutateAsync({
        url: target,
        rule_id: ruleId === AUTO_RULE ? undefined : Number(ruleId),
      });
      if (current !== run.current) return;
      setPage(answer);
      analysis.loadContext(answer.content);
    } catch (error) {
      if (current !== run.current) return;
      const text = fetchUrlFailureText(error);
      setPage(null);
      setFailure({ text, domain: domainOfInput(target) });
      toast.error(text);
    }
  };

  const empty = !url && ruleId === AUTO_RULE && !page && !failure && analysis.empty;
  const reset = () => {
    run.current += 1;
    setUrl('');
    setRuleId(AUTO_RULE);
    setPage(null);
    setFailure(null);
    fetchUrl.reset();
    analysis.reset();
  };

  return (
    <Stack gap="lg">
      <PageHeader
        title="URL Playground"
        description="Scrap a page under a scraping rule, see what the rule keeps, and analyse the clean text."
        actions={
          <Button
            variant="default"
            leftSection={<IconEraser size={16} />}
            onClick={reset}
            disabled={empty}
          >
            Reset
          </Button>
        }
      />
      <ModelWarningBanner />

      <Paper withBorder radius="md" p="md">
        <form onSubmit={(e) => void scrap(e)} noValidate aria-label="Scrap URL">
          <Stack gap="sm">
            <Group align="flex-start" gap="sm" wrap="wrap">
              <TextInput
                label="URL"
                placeholder="https://example.org/article"
                value={url}
                onChange={(e) => setUrl(e.currentTarget.value)}
                style={{ flex: 1 }}
                miw={280}
              />
              <Select
                label="Scraping rule"
                data={ruleOptions(rules.data)}
                value={ruleId}
                onChange={(v) => setRuleId(v ?? AUTO_RULE)}
                allowDeselect={false}
                searchable
                nothingFoundMessage="No rule matches"
                error={rules.isError ? 'Rules could not be loaded' : undefined}
                w={320}
              />
              <Button
                type="submit"
                mt={25}
                leftSection={<IconWorldDownload size={16} />}
                disabled={!url.trim()}
                loading={fetchUrl.isPending}
              >
                Scrap
              </Button>
            </Group>
            {failure ? (
              <Group gap="md" wrap="nowrap" align="center">
                <Alert
                  color="red"
                  variant="light"
                  icon={<IconAlertTriangle size={18} />}
                  py="xs"
                  style={{ flex: 1 }}
                >
                  {failure.text}
                </Alert>
                {failure.domain ? <EditRulesLink domain={failure.domain} /> : null}
              </Group>
            ) : null}
            {page ? (
              <FetchInfo page={page} action={<EditRulesLink domain={page.domain} />} />
            ) : null}
          </Stack>
        </form>
      </Paper>

      <Grid gap="lg" align="stretch">
        <Grid.Col span={{ base: 12, lg: 6 }}>
          <Paper withBorder radius="md" p="md" h="100%">
            <HtmlPreview html={page?.html ?? null} truncated={page?.html_truncated} />
          </Paper>
        </Grid.Col>
        <Grid.Col span={{ base: 12, lg: 6 }}>
          <Paper withBorder radius="md" p="md" h="100%">
            <Stack gap="md">
              <Title order={4}>Analyse</Title>
              <AnalyzeForm
                analysis={analysis}
                contextRows={8}
                contextDescription={
                  page
                    ? `The clean text of ${page.domain}; it can be edited.`
                    : 'The scraped page’s clean text lands here; it can be edited or pasted.'
                }
              />
              <AnalysisResults analysis={analysis} />
            </Stack>
          </Paper>
        </Grid.Col>
      </Grid>
    </Stack>
  );
}
