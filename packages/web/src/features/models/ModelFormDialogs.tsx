import { useState, type FormEvent } from 'react';
import { Button, Group, Modal, Select, Stack, TextInput, Textarea } from '@mantine/core';
import {
  MODEL_TYPES,
  ModelCreate,
  ModelUpdate,
  type Model,
  type ModelCreateInput,
} from '@adam/contracts';
import type { z } from 'zod';
import { isApiError } from '../../api/client';
import { toast } from '../../layout/toasts';
import { reasonOf, useCreateModel, useUpdateModel } from './models.api';
import { LANGUAGE_OPTIONS, languageName } from './modelRules';

const TYPE_OPTIONS = MODEL_TYPES.map((t) => ({ value: t, label: t }));

interface Fields {
  name: string;
  type: string | null;
  language: string | null;
  description: string;
  repo: string;
  revision: string;
  version: string;
}
type FieldName = keyof Fields;
type FieldErrors = Partial<Record<FieldName, string>>;

const LABELS: Record<FieldName, string> = {
  name: 'Name',
  type: 'Type',
  language: 'Language',
  description: 'Description',
  repo: 'Hub repository',
  revision: 'Revision',
  version: 'Version',
};

/** The contract's own checks, as "Label message" under each field. */
function schemaErrors(error: z.ZodError): FieldErrors {
  const errors: FieldErrors = {};
  for (const issue of error.issues) {
    const field = issue.path[0] as FieldName | undefined;
    if (field && field in LABELS && !errors[field])
      errors[field] = `${LABELS[field]} ${issue.message}`;
  }
  return errors;
}

/** The server's per-field answer (`errors[].field`), else nothing. */
function serverErrors(error: unknown): FieldErrors {
  if (!isApiError(error)) return {};
  const errors: FieldErrors = {};
  for (const field of Object.keys(LABELS) as FieldName[]) {
    const message = error.fieldError(field);
    if (message) errors[field] = `${LABELS[field]} ${message}`;
  }
  return errors;
}

function useFields(initial: Fields) {
  const [fields, setFields] = useState(initial);
  const [errors, setErrors] = useState<FieldErrors>({});
  const set = (field: FieldName, value: string | null) => {
    setFields((current) => ({ ...current, [field]: value }));
    setErrors((current) => ({ ...current, [field]: undefined }));
  };
  const input = (field: Exclude<FieldName, 'type' | 'language'>) => ({
    label: LABELS[field],
    value: fields[field],
    error: errors[field],
    onChange: (e: { currentTarget: { value: string } }) => set(field, e.currentTarget.value),
  });
  return { fields, errors, setErrors, set, input };
}

const EMPTY: Fields = {
  name: '',
  type: null,
  language: 'en',
  description: '',
  repo: '',
  revision: 'main',
  version: '',
};

function CreateForm({ onClose }: { onClose: () => void }) {
  const create = useCreateModel();
  const { fields, errors, setErrors, set, input } = useFields(EMPTY);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!fields.type) {
      setErrors({
        type: 'Type is required',
        ...(fields.name.trim() ? {} : { name: 'Name is required' }),
      });
      return;
    }
    const body: ModelCreateInput = {
      name: fields.name,
      type: fields.type as ModelCreateInput['type'],
      language: (fields.language ?? 'en') as ModelCreateInput['language'],
      description: fields.description,
      revision: fields.revision.trim() || 'main',
      // An empty repository means "the name" (the server's default).
      ...(fields.repo.trim() ? { repo: fields.repo } : {}),
      ...(fields.version.trim() ? { version: fields.version } : {}),
    };
    const parsed = ModelCreate.safeParse(body);
    if (!parsed.success) {
      setErrors(schemaErrors(parsed.error));
      return;
    }
    create.mutate(parsed.data, {
      onSuccess: (model) => {
        toast.success(`${model.name} created`);
        onClose();
      },
      onError: (error) => {
        setErrors(serverErrors(error));
        toast.error(`Failed to create model: ${reasonOf(error)}`);
      },
    });
  };

  return (
    <form onSubmit={submit} noValidate aria-label="New model">
      <Stack gap="sm">
        <TextInput {...input('name')} required data-autofocus placeholder="all-MiniLM-L6-v2" />
        <Select
          label={LABELS.type}
          required
          data={TYPE_OPTIONS}
          value={fields.type}
          onChange={(value) => set('type', value)}
          error={errors.type}
          placeholder="Pick a type"
        />
        <Select
          label={LABELS.language}
          data={LANGUAGE_OPTIONS}
          value={fields.language}
          onChange={(value) => set('language', value)}
          allowDeselect={false}
          error={errors.language}
        />
        <Textarea {...input('description')} rows={3} />
        <TextInput
          {...input('repo')}
          placeholder="sentence-transformers/all-MiniLM-L6-v2"
          description="Optional: the model hub repository (owner/name). Defaults to the name."
        />
        <TextInput
          {...input('revision')}
          description="Optional: the branch, tag or commit to install (main by default)."
        />
        <Group justify="flex-end" mt="xs">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" loading={create.isPending}>
            Create
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

export function CreateModelDialog({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  return (
    <Modal opened={opened} onClose={onClose} title="New Model" centered size="lg">
      {/* Mounted per opening: a new dialog starts empty. */}
      {opened ? <CreateForm onClose={onClose} /> : null}
    </Modal>
  );
}

function EditForm({ model, onClose }: { model: Model; onClose: () => void }) {
  const update = useUpdateModel();
  const initial: Fields = {
    name: model.name,
    type: model.type,
    // 'multi' (a catalogue language) is not offered: left unchanged unless one is picked.
    language: LANGUAGE_OPTIONS.some((o) => o.value === model.language) ? model.language : null,
    description: model.description,
    repo: model.repo ?? '',
    revision: model.revision,
    version: model.version,
  };
  const { fields, errors, setErrors, set, input } = useFields(initial);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    // Only what changed is sent.
    const change: Record<string, string> = {};
    for (const field of [
      'name',
      'language',
      'description',
      'repo',
      'revision',
      'version',
    ] as const) {
      const value = fields[field];
      if (value !== null && value !== initial[field]) change[field] = value;
    }
    if (Object.keys(change).length === 0) {
      onClose();
      return;
    }
    const parsed = ModelUpdate.safeParse(change);
    if (!parsed.success) {
      setErrors(schemaErrors(parsed.error));
      return;
    }
    update.mutate(
      { id: model.id, change: parsed.data },
      {
        onSuccess: (saved) => {
          toast.success(`${saved.name} updated`);
          onClose();
        },
        onError: (error) => {
          setErrors(serverErrors(error));
          toast.error(`Failed to update ${model.name}: ${reasonOf(error)}`);
        },
      },
    );
  };

  return (
    <form onSubmit={submit} noValidate aria-label={`Edit ${model.name}`}>
      <Stack gap="sm">
        <TextInput {...input('name')} required data-autofocus />
        <Select
          label={LABELS.language}
          data={LANGUAGE_OPTIONS}
          value={fields.language}
          onChange={(value) => set('language', value)}
          allowDeselect={false}
          error={errors.language}
          placeholder={`${languageName(model.language)} (unchanged)`}
        />
        <Textarea {...input('description')} rows={3} />
        <TextInput {...input('repo')} description="The model hub repository (owner/name)." />
        <TextInput {...input('revision')} />
        <TextInput {...input('version')} />
        <Group justify="flex-end" mt="xs">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" loading={update.isPending}>
            Save
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** Built-in models are never passed here: their Edit button is disabled. */
export function EditModelDialog({ model, onClose }: { model: Model | null; onClose: () => void }) {
  return (
    <Modal
      opened={model !== null}
      onClose={onClose}
      title={model ? `Edit ${model.name}` : ''}
      centered
      size="lg"
    >
      {model ? <EditForm key={model.id} model={model} onClose={onClose} /> : null}
    </Modal>
  );
}
