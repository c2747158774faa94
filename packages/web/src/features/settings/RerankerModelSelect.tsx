import { Select } from '@mantine/core';
import type { Model } from '@adam/contracts';
import { useModels } from '../models/models.api';
import { isInstalled, statusLabel } from '../models/modelRules';

/** What the select shows for reranker_model ''. */
const NO_RERANKER = 'None';

/**
 * One option per reranker model of the registry (only installed ones can be chosen), after
 * "None" (''); a saved name the registry no longer has is still shown.
 */
function rerankerModelOptions(models: readonly Model[], current: string) {
  const rerankers = models.filter((m) => m.type === 'reranker');
  const options = [
    { value: '', label: NO_RERANKER, disabled: false },
    ...rerankers.map((m) => ({
      value: m.name,
      label: `${m.name} · ${statusLabel(m.status)}`,
      disabled: !isInstalled(m.status),
    })),
  ];
  if (current !== '' && !rerankers.some((m) => m.name === current)) {
    options.push({ value: current, label: `${current} · not in the registry`, disabled: true });
  }
  return options;
}

/** The processing screen's Reranker Model: the registry's installed cross-encoders. */
export function RerankerModelSelect({
  value,
  onChange,
  error,
}: {
  value: string;
  onChange: (name: string) => void;
  error?: string;
}) {
  const models = useModels();
  const options = rerankerModelOptions(models.data?.models ?? [], value);
  const none = options.length === 1;
  return (
    <Select
      label="Reranker Model"
      description={
        none
          ? 'No reranker model yet: add one of type reranker in Model Management and install it.'
          : 'The cross-encoder that re-scores the top results. Install models in Model Management.'
      }
      data={options}
      value={value}
      onChange={(v) => onChange(v ?? '')}
      error={error}
      allowDeselect={false}
    />
  );
}
