/** Creating a set (name, description), or renaming it and editing its description. */
import { useState } from 'react';
import { Alert, Button, Group, Modal, Stack, TextInput, Textarea } from '@mantine/core';
import { useCreateSet, useUpdateSet, type QualitySet } from './quality.api';

function SetForm({
  editing,
  onClose,
  onSaved,
}: {
  editing: QualitySet | null;
  onClose: () => void;
  onSaved: (setId: number) => void;
}) {
  const [name, setName] = useState(editing?.name ?? '');
  const [description, setDescription] = useState(editing?.description ?? '');
  const create = useCreateSet();
  const update = useUpdateSet();
  const error = create.error ?? update.error;
  const blank = name.trim() === '';

  const submit = () => {
    if (blank) return;
    const body = { name: name.trim(), description: description.trim() };
    const done = (set: QualitySet) => {
      onSaved(set.id);
      onClose();
    };
    if (editing) update.mutate({ id: editing.id, change: body }, { onSuccess: done });
    else create.mutate(body, { onSuccess: done });
  };

  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      <Stack gap="sm">
        <TextInput
          label="Name"
          required
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
          maxLength={200}
          error={blank && (create.isError || update.isError) ? 'Must not be empty' : undefined}
          data-autofocus
        />
        <Textarea
          label="Description"
          description="What the queries stand for, e.g. “questions our support team gets”."
          value={description}
          onChange={(e) => setDescription(e.currentTarget.value)}
          maxLength={2000}

          rows={3}
        />
        {error ? (
          <Alert color="red" variant="light" title="Not saved">
            {error.message}
          </Alert>
        ) : null}
        <Group justify="flex-end" gap="sm">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" disabled={blank} loading={create.isPending || update.isPending}>
            {editing ? 'Save' : 'Create set'}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** `editing` null with `opened` creates a set. */
export function QualitySetFormModal({
  opened,
  editing,
  onClose,
  onSaved,
}: {
  opened: boolean;
  editing: QualitySet | null;
  onClose: () => void;
  onSaved: (setId: number) => void;
}) {
  return (
    <Modal
      opened={opened}
      onClose={onClose}
      title={editing ? 'Edit the set' : 'New evaluation set'}
      size="md"
    >
      {opened ? <SetForm editing={editing} onClose={onClose} onSaved={onSaved} /> : null}
    </Modal>
  );
}
