/**
 * Adding a query to a set by searching and grading the results, or editing an existing query's
 * judgments. Either way the save makes a new version of the set.
 */
import { useEffect, useRef, useState } from 'react';
import {
  Alert,
  Button,
  Divider,
  Group,
  Modal,
  Select,
  Stack,
  Text,
  TextInput,
} from '@mantine/core';
import type { EvaluationQuery, SearchMode } from '@adam/contracts';
import { toast } from '../../layout/toasts';
import { useSnippetSearch } from '../snippets/snippets.api';
import {
  judgmentInput,
  useAddQuery,
  useCreateSet,
  useReplaceJudgments,
  type QualitySet,
} from './quality.api';
import {
  GradeBadge,
  GradeControl,
  JUDGING_SEARCH_K,
  JudgingSearch,
  judgmentKey,
  judgmentLabel,
  setGrade,
  type JudgmentDraft,
} from './QualityJudging';

const NEW_SET = 'new';

export type QueryEditorTarget =
  | { kind: 'add'; setId: number | null; text: string; mode: SearchMode; search: boolean }
  | { kind: 'edit'; setId: number; query: EvaluationQuery; mode: SearchMode };

function QueryEditor({
  target,
  sets,
  onClose,
  onSaved,
}: {
  target: QueryEditorTarget;
  sets: QualitySet[];
  onClose: () => void;
  onSaved: (setId: number) => void;
}) {
  const editing = target.kind === 'edit' ? target.query : null;
  const [text, setText] = useState(
    editing ? editing.text : target.kind === 'add' ? target.text : '',
  );
  const [mode, setMode] = useState<SearchMode>(target.mode);
  const [setChoice, setSetChoice] = useState<string | null>(
    target.setId !== null ? String(target.setId) : sets.length === 0 ? NEW_SET : null,
  );
  const [newSetName, setNewSetName] = useState('');
  const [draft, setDraft] = useState<JudgmentDraft>(
    () => new Map((editing?.judgments ?? []).map((j) => [judgmentKey(j), j])),
  );
  const search = useSnippetSearch();
  const addQuery = useAddQuery();
  const createSet = useCreateSet();
  const replace = useReplaceJudgments();
  const saving = addQuery.isPending || createSet.isPending || replace.isPending;
  const saveError = addQuery.error ?? createSet.error ?? replace.error;

  const runSearch = (query = text, searchMode = mode) => {
    if (query.trim()) search.mutate({ query: query.trim(), k: JUDGING_SEARCH_K, mode: searchMode });
  };

  // Opened from a link (?add_query=) or to edit a query: its text is searched at once.
  const searchedOnOpen = useRef(false);
  useEffect(() => {
    if (searchedOnOpen.current) return;
    searchedOnOpen.current = true;
    if (target.kind === 'edit' || target.search) runSearch();
  }, []);

  const judgments = [...draft.values()];
  const creating = !editing && setChoice === NEW_SET;
  const missing = editing
    ? judgments.length === 0
      ? 'Grade at least one result.'
      : null
    : text.trim() === ''
      ? 'Type the query and search.'
      : setChoice === null
        ? 'Choose the set the query goes into.'
        : creating && newSetName.trim() === ''
          ? 'Name the new set.'
          : judgments.length === 0
            ? 'Grade at least one result.'
            : null;

  const save = () => {
    if (missing) return;
    const inputs = judgments.map(judgmentInput);
    const done = (setId: number, version: number) => {
      toast.success(`Saved as version ${version} of the set`);
      // The screen closes the editor with the save (one address change).
      onSaved(setId);
    };
    if (editing) {
      replace.mutate(
        { setId: target.setId!, key: editing.key, judgments: inputs },
        { onSuccess: (v) => done(v.set.id, v.version.number) },
      );
    } else if (creating) {
      createSet.mutate(
        { name: newSetName.trim(), queries: [{ text: text.trim(), judgments: inputs }] },
        { onSuccess: (set) => done(set.id, set.latest.number) },
      );
    } else {
      addQuery.mutate(
        { setId: Number(setChoice), query: { text: text.trim(), judgments: inputs } },
        { onSuccess: (v) => done(v.set.id, v.version.number) },
      );
    }
  };

  return (
    <Stack gap="md">
      {!editing ? (
        <Group gap="sm" align="flex-end" grow>
          <Select
            label="Set"
            placeholder="Choose a set"
            data={[
              ...sets.map((s) => ({ value: String(s.id), label: s.name })),
              { value: NEW_SET, label: 'New set…' },
            ]}
            value={setChoice}
            onChange={setSetChoice}
            allowDeselect={false}
            searchable
          />
          {creating ? (
            <TextInput
              label="New set name"
              value={newSetName}
              onChange={(e) => setNewSetName(e.currentTarget.value)}
              maxLength={200}
            />
          ) : null}
        </Group>
      ) : null}

      {editing && judgments.length > 0 ? (
        <Stack gap={6} aria-label="Judgments">
          <Text size="sm" fw={500}>
            Judgments
          </Text>
          {judgments.map((j) => (
            <Group key={judgmentKey(j)} justify="space-between" wrap="nowrap">
              <GradeBadge judgment={j} />
              <GradeControl
                label={`Grade of ${judgmentLabel(j)}`}
                value={j.grade}
                onChange={(g) => setDraft(setGrade(draft, j, g))}
              />
            </Group>
          ))}
          <Divider />
        </Stack>
      ) : null}

      <JudgingSearch
        text={text}
        onText={setText}
        textLocked={!!editing}
        mode={mode}
        onMode={(m) => {
          setMode(m);
          if (search.data) runSearch(text, m);
        }}
        onSearch={() => runSearch()}
        searching={search.isPending}
        error={search.error}
        results={search.data?.results}
        draft={draft}
        onDraft={setDraft}
      />

      {saveError ? (
        <Alert color="red" variant="light" title="Not saved">
          {saveError.message}
        </Alert>
      ) : null}

      <Group justify="space-between" wrap="nowrap">
        <Text size="sm" c="dimmed">
          {missing ?? `${judgments.length} judgment(s): saving makes a new version of the set.`}
        </Text>
        <Group gap="sm" wrap="nowrap">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button onClick={save} disabled={missing !== null} loading={saving}>
            {editing ? 'Save judgments' : 'Add query'}
          </Button>
        </Group>
      </Group>
    </Stack>
  );
}

/** The modal around the editor; a new editor (fresh state) each time it opens. */
export function QualityQueryModal({
  target,
  sets,
  onClose,
  onSaved,
}: {
  target: QueryEditorTarget | null;
  sets: QualitySet[];
  onClose: () => void;
  onSaved: (setId: number) => void;
}) {
  return (
    <Modal
      opened={target !== null}
      onClose={onClose}
      title={target?.kind === 'edit' ? 'Edit judgments' : 'Add a query'}
      size="xl"
    >
      {target ? (
        <QueryEditor target={target} sets={sets} onClose={onClose} onSaved={onSaved} />
      ) : null}
    </Modal>
  );
}
