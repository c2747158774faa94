import { Select } from '@mantine/core';
import { EMBEDDING_MODELS, type Model } from '@adam/contracts';
import { useModels } from '../models/models.api';
import { isInstalled, statusLabel } from '../models/modelRules';

const SPEC_LABELS: Record<string, string> = Object.fromEntries(
  EMBEDDING_MODELS.map(({ value, label }) => [value, label]),
);

/** One option per embedding model of the registry; only installed ones can be chosen. */
function embeddingModelOptions(models: readonly Model[], current: string) {
  const embedding = models.filter((m) => m.type === 'embedding');
  const options = embedding.map((m) => ({
    value: m.name,
    label: `${SPEC_LABELS[m.name] ?? m.name} · ${m.active ? 'active' : statusLabel(m.status)}`,
    disabled: !isInstalled(m.status),
  }));
  // Before the registry answered (or for a name it no longer has), still show the value.
  if (!embedding.some((m) => m.name === current)) {
    options.unshift({ value: current, label: SPEC_LABELS[current] ?? current, disabled: false });
  }
  return options;
}

const SWITCH_HINT =
  'Choosing another installed model re-embeds every snippet with it as a background job; search keeps answering with the active model until that job completes. Install models in Model Management.';

/**
 * The processing screen's Embedding Model: the registry's embedding models with their status;
 * saving another one activates it (the server queues the re-embedding).
 */
export function EmbeddingModelSelect({
  value,
  onChange,
  error,
}: {
  value: string;
  onChange: (name: string) => void;
  error?: string;
}) {
  const models = useModels();
  return (
    <Select
      label="Embedding Model"
      description={SWITCH_HINT}
      data={embeddingModelOptions(models.data?.models ?? [], value)}
      value={value}
      onChange={(v) => v && onChange(v)}
      error={error}
      allowDeselect={false}
    />
  );
}

/** The vector length of the model named `name`, when the registry knows it. */
export function useEmbeddingDimension(name: string): number | null {
  const models = useModels();
  return (
    models.data?.models.find((m) => m.type === 'embedding' && m.name === name)?.dimension ?? null
  );
}
