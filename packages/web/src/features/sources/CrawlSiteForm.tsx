import { useState } from 'react';
import {
  NumberInput,
  SegmentedControl,
  SimpleGrid,
  Stack,
  Switch,
  Text,
  Textarea,
} from '@mantine/core';
import { IconSpider } from '@tabler/icons-react';
import { CRAWL_BOUNDS, type CRAWL_SCOPES } from '@adam/contracts';
import { isApiError } from '../../api/client';
import {
  readLines,
  sourceOptionsBody,
  SourceOptionsFields,
  splitField,
  useSourceOptions,
} from './SourceOptionsFields';
import { useStartCrawl } from './sources.api';
import { FormProblem } from './FormProblem';
import { JobForm, useQueueJob, type JobFormProps } from './JobForm';

type CrawlScope = (typeof CRAWL_SCOPES)[number];

const SCOPES: { value: CrawlScope; label: string }[] = [
  { value: 'host', label: 'Same host' },
  { value: 'domain', label: 'Host and subdomains' },
  { value: 'prefix', label: 'Path prefix' },
];

const SCOPE_HINTS: Record<CrawlScope, string> = {
  host: 'Links on the start URLs’ hosts only.',
  domain: 'Links on the start URLs’ hosts and their subdomains.',
  prefix: 'Links under the start URLs’ paths (https://x.org/docs/ keeps /docs/...).',
};

const PATTERN_HINT =
  'One a line. * matches any characters; a pattern starting with / is matched against the path and query, any other against the whole URL.';

const monospace = { input: { fontFamily: 'var(--mantine-font-family-monospace)' } };

type CrawlField =
  | 'start_urls'
  | 'max_depth'
  | 'max_pages'
  | 'include_patterns'
  | 'exclude_patterns'
  | 'min_quality'
  | 'language'
  | 'priority';

interface LineError {
  line: number | null;
  message: string;
}

/** Add Sources, "Crawl a site" (issue 24): a crawl_site job from start URLs, followed live. */
export function CrawlSiteForm({ onQueued }: JobFormProps) {
  const [startText, setStartText] = useState('');
  const [scope, setScope] = useState<CrawlScope>('host');
  const [maxDepth, setMaxDepth] = useState<number | string>(CRAWL_BOUNDS.max_depth.default);
  const [maxPages, setMaxPages] = useState<number | string>(CRAWL_BOUNDS.max_pages.default);
  const [includeText, setIncludeText] = useState('');
  const [excludeText, setExcludeText] = useState('');
  const [useSitemaps, setUseSitemaps] = useState(true);
  const [options, setOptions] = useSourceOptions();
  const [errors, setErrors] = useState<Partial<Record<CrawlField, string>>>({});
  const [urlErrors, setUrlErrors] = useState<LineError[]>([]);
  const [formError, setFormError] = useState<string | null>(null);
  const crawl = useQueueJob(useStartCrawl(), onQueued, {
    queued: (r) =>
      `Crawl job ${r.job_id} queued from ${r.start_urls.length} start URL${r.start_urls.length === 1 ? '' : 's'}`,
    failed: 'Failed to start the crawl',
  });

  const starts = readLines(startText);
  const include = readLines(includeText);
  const exclude = readLines(excludeText);

  const clear = (field: CrawlField) => {
    if (errors[field]) setErrors(({ [field]: _, ...rest }) => rest);
  };

  const showServerErrors = (error: Error) => {
    if (!isApiError(error)) {
      setFormError(error.message);
      return;
    }
    const next: Partial<Record<CrawlField, string>> = {};
    const perUrl: LineError[] = [];
    // A line's index in the request is its index among the non-blank lines of its box.
    const lineOf = (name: string, index: number | null) => {
      const lines =
        name === 'start_urls'
          ? starts.lines
          : name === 'include_patterns'
            ? include.lines
            : exclude.lines;
      return index === null ? null : (lines[index] ?? null);
    };
    for (const e of error.fieldErrors) {
      const { name, index } = splitField(e.field);
      if (name === 'start_urls') {
        perUrl.push({ line: lineOf(name, index), message: e.message });
      } else if (name in FIELD_NAMES) {
        const line = lineOf(name, index);
        next[name as CrawlField] ??= line === null ? e.message : `Line ${line}: ${e.message}`;
      }
    }
    // A pattern the crawler cannot use comes as a sentence naming its list.
    if (error.fieldErrors.length === 0 && error.status === 422) {
      if (/\binclude patterns?\b/.test(error.message)) next.include_patterns = error.message;
      else if (/\bexclude patterns?\b/.test(error.message)) next.exclude_patterns = error.message;
    }
    if (perUrl.length > 0) {
      next.start_urls =
        perUrl.length === 1 && perUrl[0]!.line === null
          ? perUrl[0]!.message
          : `${perUrl.length} line${perUrl.length === 1 ? '' : 's'} to fix`;
    }
    setErrors(next);
    setUrlErrors(perUrl.filter((e) => e.line !== null));
    // Nothing named a field: the detail stands above the button.
    setFormError(Object.keys(next).length === 0 ? error.message : null);
  };

  const submit = () => {
    setUrlErrors([]);
    setFormError(null);
    if (starts.values.length === 0) {
      setErrors({ start_urls: 'Please enter at least one start URL' });
      return;
    }
    setErrors({});
    crawl.queue(
      {
        start_urls: starts.values,
        scope,
        max_depth: typeof maxDepth === 'number' ? maxDepth : undefined,
        max_pages: typeof maxPages === 'number' ? maxPages : undefined,
        include_patterns: include.values,
        exclude_patterns: exclude.values,
        use_sitemaps: useSitemaps,
        ...sourceOptionsBody(options),
      },
      { onError: showServerErrors },
    );
  };

  return (
    <JobForm
      onSubmit={submit}
      summary={`${starts.values.length} start URL${starts.values.length === 1 ? '' : 's'}`}
      submitLabel="Start crawl"
      submitIcon={<IconSpider size={16} />}
      pending={crawl.pending}
    >
      <Textarea
        label="Start URLs"
        description={`One URL per line, up to ${CRAWL_BOUNDS.start_urls.max}; links are followed from them.`}
        placeholder={'https://docs.example.org/'}
        rows={4}
        resize="vertical"
        value={startText}
        onChange={(e) => {
          setStartText(e.currentTarget.value);
          clear('start_urls');
        }}
        error={errors.start_urls}
        styles={monospace}
      />
      {urlErrors.length > 0 ? (
        <FormProblem
          title="Invalid start URLs"
          items={urlErrors.map((e) => `Line ${e.line}: ${e.message}`)}
        />
      ) : null}
      <Stack gap={4}>
        <Text size="sm" fw={500} id="crawl-scope-label">
          Scope
        </Text>
        <SegmentedControl
          aria-labelledby="crawl-scope-label"
          data={SCOPES}
          value={scope}
          onChange={(v) => setScope(v as CrawlScope)}
        />
        <Text size="xs" c="dimmed">
          {SCOPE_HINTS[scope]}
        </Text>
      </Stack>
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <NumberInput
          label="Max depth"
          description={`Links away from a start URL (${CRAWL_BOUNDS.max_depth.min}–${CRAWL_BOUNDS.max_depth.max})`}
          min={CRAWL_BOUNDS.max_depth.min}
          max={CRAWL_BOUNDS.max_depth.max}
          allowDecimal={false}
          allowNegative={false}
          value={maxDepth}
          onChange={(v) => {
            setMaxDepth(v);
            clear('max_depth');
          }}
          error={errors.max_depth}
        />
        <NumberInput
          label="Max pages"
          description={`Pages requested at most (${CRAWL_BOUNDS.max_pages.min}–${CRAWL_BOUNDS.max_pages.max.toLocaleString('en')})`}
          min={CRAWL_BOUNDS.max_pages.min}
          max={CRAWL_BOUNDS.max_pages.max}
          allowDecimal={false}
          allowNegative={false}
          thousandSeparator=","
          value={maxPages}
          onChange={(v) => {
            setMaxPages(v);
            clear('max_pages');
          }}
          error={errors.max_pages}
        />
        <Textarea
          label="Include patterns"
          description="Only matching links are followed; empty follows all."
          placeholder={'/docs/*'}
          rows={3}
          value={includeText}
          onChange={(e) => {
            setIncludeText(e.currentTarget.value);
            clear('include_patterns');
          }}
          error={errors.include_patterns}
          styles={monospace}
        />
        <Textarea
          label="Exclude patterns"
          description="Matching links are skipped."
          placeholder={'*/tag/*\n*?page=*'}
          rows={3}
          value={excludeText}
          onChange={(e) => {
            setExcludeText(e.currentTarget.value);
            clear('exclude_patterns');
          }}
          error={errors.exclude_patterns}
          styles={monospace}
        />
      </SimpleGrid>
      <Text size="xs" c="dimmed" mt={-8}>
        {PATTERN_HINT}
      </Text>
      <Switch
        label="Use sitemaps"
        description="Also start from the URLs of the sites’ sitemaps (robots.txt Sitemap: lines, /sitemap.xml)."
        checked={useSitemaps}
        onChange={(e) => setUseSitemaps(e.currentTarget.checked)}
      />
      <SourceOptionsFields value={options} onChange={setOptions} errors={errors} />
      {formError ? <FormProblem>{formError}</FormProblem> : null}
    </JobForm>
  );
}

const FIELD_NAMES: Record<Exclude<CrawlField, 'start_urls'>, true> = {
  max_depth: true,
  max_pages: true,
  include_patterns: true,
  exclude_patterns: true,
  min_quality: true,
  language: true,
  priority: true,
};
