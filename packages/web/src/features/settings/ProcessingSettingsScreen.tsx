import { useEffect, useState } from 'react';
import {
  Button,
  Center,
  Divider,
  Grid,
  Loader,
  NumberInput,
  Select,
  SimpleGrid,
  Stack,
  Switch,
  Text,
  TextInput,
} from '@mantine/core';
import { IconDeviceFloppy } from '@tabler/icons-react';
import {
  EMBEDDING_DIMENSION,
  INDEX_STORAGE_LABELS,
  INDEX_STORAGES,
  PROCESSING_BOUNDS,
  type ProcessingSettings,
} from '@adam/contracts';
import { isApiError } from '../../api/client';
import { PageHeader } from '../../components/PageHeader';
import { SettingsCard } from '../../components/SettingsCard';
import { toast } from '../../layout/toasts';
import { CrawlerSettingsCard } from './CrawlerSettingsCard';
import { EmbeddingModelSelect, useEmbeddingDimension } from './EmbeddingModelSelect';
import { RerankerModelSelect } from './RerankerModelSelect';
import { UploadLimitsCard } from './UploadLimitsCard';
import { useSaveSettingsSection, useSettingsSection } from './settings.api';
import { choiceOf, toSectionChange } from './useSectionForm';

type NumericField = keyof typeof PROCESSING_BOUNDS;
/** Number inputs hold a string while empty or half-typed. */
type ProcessingForm = {
  [K in keyof ProcessingSettings]: ProcessingSettings[K] extends number
    ? number | string
    : ProcessingSettings[K];
};
type FieldErrors = Partial<Record<keyof ProcessingSettings, string>>;

const QUALITY_FIELDS: {
  field: Exclude<NumericField, 'embedding_batch_size' | 'search_vector_weight' | 'rerank_top_n'>;
  label: string;
}[] = [
  { field: 'min_quality_score', label: 'Min Quality Score' },
  { field: 'min_content_length', label: 'Min Content Length' },
  { field: 'min_word_count', label: 'Min Word Count' },
  { field: 'segment_min_length', label: 'Segment Min Length' },
  { field: 'segment_max_length', label: 'Segment Max Length' },
  { field: 'segment_min_words', label: 'Segment Min Words' },
  { field: 'segment_quality_threshold', label: 'Segment Quality Threshold' },
  { field: 'segment_max_tokens', label: 'Segment Max Tokens' },
  { field: 'segment_max_sentences', label: 'Segment Max Sentences' },
  { field: 'segment_overlap', label: 'Segment Overlap' },
  { field: 'max_concurrent_scrapes', label: 'Max Concurrent Scrapes' },
];

const FIELD_ORDER: (keyof ProcessingSettings)[] = [
  'embedding_model',
  'embedding_batch_size',
  'min_quality_score',
  'min_content_length',
  'min_word_count',
  'segment_min_length',
  'segment_max_length',
  'segment_min_words',
  'segment_quality_threshold',
  'segment_max_tokens',
  'segment_max_sentences',
  'segment_overlap',
  'segmenter_model',
  'smart_segmentation',
  'max_concurrent_scrapes',
  'search_vector_weight',
  'index_storage',
  'task_timeout_seconds',
  'rerank_enabled',
  'rerank_top_n',
  'reranker_model',
];

function boundsProps(field: NumericField) {
  const bounds: { min: number; max?: number; step?: number } = PROCESSING_BOUNDS[field];
  const step = bounds.step ?? 1;
  return {
    min: bounds.min,
    max: bounds.max,
    step,
    decimalScale: step < 1 ? 2 : 0,
    allowDecimal: step < 1,
    allowNegative: false,
    clampBehavior: 'blur' as const,
  };
}

/** Processing Settings (spec 000 §2, §3): the group `processing` of GET/PUT /admin/settings. */
export function ProcessingSettingsScreen() {
  const { data, isLoading, isError } = useSettingsSection('processing');
  const save = useSaveSettingsSection('processing');
  const [form, setForm] = useState<ProcessingForm | null>(null);
  const [errors, setErrors] = useState<FieldErrors>({});
  const dimension = useEmbeddingDimension(form?.embedding_model ?? '') ?? EMBEDDING_DIMENSION;

  useEffect(() => {
    if (data) setForm(data);
  }, [data]);

  if (isLoading || (!form && !isError)) {
    return (
      <Center mih="40vh">
        <Loader />
      </Center>
    );
  }
  if (!form) {
    return (
      <>
        <PageHeader title="Processing Settings" />
        <Text c="dimmed">The processing settings could not be loaded.</Text>
      </>
    );
  }

  const set = <K extends keyof ProcessingForm>(field: K, value: ProcessingForm[K]) => {
    setForm((current) => (current ? { ...current, [field]: value } : current));
    setErrors((current) => ({ ...current, [field]: undefined }));
  };

  const apply = () => {
    if (!data) return;
    // Numbers as numbers; an emptied number input is named at its field and nothing is sent.
    const { change, empty } = toSectionChange(form, data);
    setErrors(empty);
    if (Object.keys(empty).length > 0) return;
    save.mutate(change, {
      onSuccess: (saved, sent) => {
        setForm(saved);
        toast.success('Processing settings saved');
        if (sent.embedding_model !== saved.embedding_model) {
          toast.info(
            `Re-embedding every snippet with ${String(sent.embedding_model)}: it becomes the active model when the job completes`,
          );
        }
      },
      // The request-error handler has already shown the detail as a toast.
      onError: (error) => {
        if (!isApiError(error)) return;
        const found: FieldErrors = {};
        for (const field of FIELD_ORDER) {
          const message = error.fieldError(field);
          if (message) found[field] = message;
        }
        setErrors(found);
      },
    });
  };

  return (
    <Stack gap="lg" maw={980}>
      <PageHeader
        title="Processing Settings"
        description="How sources are cut into snippets, filtered and embedded."
      />

      <SettingsCard title="Embedding Configuration">
        <Grid>
          <Grid.Col span={{ base: 12, md: 6 }}>
            <EmbeddingModelSelect
              value={form.embedding_model}
              onChange={(name) => set('embedding_model', name)}
              error={errors.embedding_model}
            />
          </Grid.Col>
          <Grid.Col span={{ base: 12, sm: 6, md: 3 }}>
            <NumberInput
              label="Batch Size"
              {...boundsProps('embedding_batch_size')}
              value={form.embedding_batch_size}
              onChange={(v) => set('embedding_batch_size', v)}
              error={errors.embedding_batch_size}
            />
          </Grid.Col>
          <Grid.Col span={{ base: 12, sm: 6, md: 3 }}>
            <NumberInput label="Dimension" value={dimension} readOnly variant="filled" />
          </Grid.Col>
        </Grid>
      </SettingsCard>

      <SettingsCard title="Quality Filters">
        <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }}>
          {QUALITY_FIELDS.map(({ field, label }) => (
            <NumberInput
              key={field}
              label={label}
              {...boundsProps(field)}
              value={form[field]}
              onChange={(v) => set(field, v)}
              error={errors[field]}
            />
          ))}
          <TextInput
            label="Segmenter Model"
            value={form.segmenter_model}
            onChange={(e) => set('segmenter_model', e.currentTarget.value)}
            error={errors.segmenter_model}
          />
          <Switch
            label="Smart Segmentation"
            checked={form.smart_segmentation}
            onChange={(e) => set('smart_segmentation', e.currentTarget.checked)}
            error={errors.smart_segmentation}
            mt={{ sm: 30 }}
          />
        </SimpleGrid>
      </SettingsCard>

      <SettingsCard title="Search">
        <Grid>
          <Grid.Col span={{ base: 12, sm: 6, md: 4 }}>
            <NumberInput
              label="Hybrid Vector Weight"
              description="Share of meaning (vectors) in hybrid search; the words (bm25) have the rest."
              {...boundsProps('search_vector_weight')}
              value={form.search_vector_weight}
              onChange={(v) => set('search_vector_weight', v)}
              error={errors.search_vector_weight}
            />
          </Grid.Col>
          <Grid.Col span={{ base: 12, sm: 6, md: 5 }}>
            <Select
              label="Index Storage"
              description="How the vector index holds each vector. A change rebuilds the index in a background job; its recall shows on the index statistics."
              data={INDEX_STORAGES.map((value) => ({ value, label: INDEX_STORAGE_LABELS[value] }))}
              value={form.index_storage}
              onChange={(v) => {
                const storage = choiceOf(INDEX_STORAGES, v);
                if (storage) set('index_storage', storage);
              }}
              error={errors.index_storage}
              allowDeselect={false}
            />
          </Grid.Col>
        </Grid>
        <Grid mt="sm">
          <Grid.Col span={{ base: 12, sm: 6, md: 4 }}>
            <Switch
              label="Rerank Hybrid Results"
              description="A cross-encoder re-scores the top results of every hybrid search; a search can still ask otherwise."
              checked={form.rerank_enabled}
              onChange={(e) => set('rerank_enabled', e.currentTarget.checked)}
              error={errors.rerank_enabled}
              mt={{ sm: 4 }}
            />
          </Grid.Col>
          <Grid.Col span={{ base: 12, sm: 6, md: 3 }}>
            <NumberInput
              label="Rerank Top N"
              description={`Fused results re-scored (${PROCESSING_BOUNDS.rerank_top_n.min}–${PROCESSING_BOUNDS.rerank_top_n.max}).`}
              {...boundsProps('rerank_top_n')}
              value={form.rerank_top_n}
              onChange={(v) => set('rerank_top_n', v)}
              error={errors.rerank_top_n}
            />
          </Grid.Col>
          <Grid.Col span={{ base: 12, md: 5 }}>
            <RerankerModelSelect
              value={form.reranker_model}
              onChange={(name) => set('reranker_model', name)}
              error={errors.reranker_model}
            />
          </Grid.Col>
        </Grid>
      </SettingsCard>

      <SettingsCard title="Limits">
        <Grid>
          <Grid.Col span={{ base: 12, sm: 6, md: 4 }}>
            <NumberInput
              label="Task Time Limit (s)"
              description="Longest one page's extraction or analysis may run on a worker thread. Past it the thread is stopped and replaced, the URL fails with an error and the job goes on."
              {...boundsProps('task_timeout_seconds')}
              value={form.task_timeout_seconds}
              onChange={(v) => set('task_timeout_seconds', v)}
              error={errors.task_timeout_seconds}
            />
          </Grid.Col>
        </Grid>
      </SettingsCard>

      <div>
        <Button
          onClick={apply}
          loading={save.isPending}
          leftSection={<IconDeviceFloppy size={16} />}
        >
          Apply Processing Settings
        </Button>
      </div>

      {/* Sections of their own, each saved by its card's button. */}
      <Divider label="Crawling and uploads" labelPosition="left" mt="md" />
      <CrawlerSettingsCard />
      <UploadLimitsCard />
    </Stack>
  );
}
