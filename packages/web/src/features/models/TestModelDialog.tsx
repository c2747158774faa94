import { useState, type FormEvent } from 'react';
import { Button, Code, Group, Modal, ScrollArea, Stack, Text, Textarea } from '@mantine/core';
import { IconPlayerPlay } from '@tabler/icons-react';
import { TestModelBody, type Model } from '@adam/contracts';
import { isApiError } from '../../api/client';
import { toast } from '../../layout/toasts';
import { DEFAULT_TEST_SENTENCE } from './constants';
import { MODEL_MESSAGES } from './messages';
import { reasonOf, useTestModel } from './models.api';

type Outcome = { kind: 'result'; json: string } | { kind: 'error'; message: string } | null;

function TestForm({ model }: { model: Model }) {
  const test = useTestModel();
  const [text, setText] = useState(DEFAULT_TEST_SENTENCE);
  const [validation, setValidation] = useState<string | null>(null);
  const [outcome, setOutcome] = useState<Outcome>(null);

  const run = (event?: FormEvent) => {
    event?.preventDefault();
    // The contract's rule (blank → 'Test text cannot be empty'), then the default sentence back.
    const parsed = TestModelBody.safeParse({ text });
    if (!parsed.success) {
      const message = parsed.error.issues[0]?.message ?? MODEL_MESSAGES.testTextEmpty;
      setValidation(message);
      if (!text.trim()) setText(DEFAULT_TEST_SENTENCE);
      return;
    }
    setValidation(null);
    setOutcome(null);
    test.mutate(
      { model, text: parsed.data.text },
      {
        onSuccess: (result) =>
          setOutcome({ kind: 'result', json: JSON.stringify(result, null, 2) }),
        onError: (error) => {
          const reason = reasonOf(error);
          setOutcome({ kind: 'error', message: reason });
          const notReady = isApiError(error) && error.status === 400 && model.type === 'spacy';
          toast.error(
            notReady
              ? MODEL_MESSAGES.notReadyForTest
              : MODEL_MESSAGES.testFailed(model.name, reason),
          );
        },
      },
    );
  };

  return (
    <form onSubmit={run} noValidate aria-label={`Test ${model.name}`}>
      <Stack gap="sm">
        <Textarea
          label="Test text"
          description="Ctrl+Enter runs the test."
          value={text}
          onChange={(e) => {
            setText(e.currentTarget.value);
            setValidation(null);
          }}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) run(e);
          }}
          error={validation}
          rows={4}
          data-autofocus
        />
        <Group justify="flex-end">
          <Button
            type="submit"
            leftSection={<IconPlayerPlay size={14} />}
            disabled={!text.trim()}
            loading={test.isPending}
          >
            Run Test
          </Button>
        </Group>
        {outcome?.kind === 'result' ? (
          <ScrollArea.Autosize mah="50vh" type="auto">
            <Code block data-testid="test-result">
              {outcome.json}
            </Code>
          </ScrollArea.Autosize>
        ) : null}
        {outcome?.kind === 'error' ? (
          <Text c="red" size="sm" data-testid="test-error">
            Error: {outcome.message}
          </Text>
        ) : null}
      </Stack>
    </form>
  );
}

/** Test model (spec 001 §2.2, §5): text, Run Test, the result as JSON or an 'Error:' line. */
export function TestModelDialog({ model, onClose }: { model: Model | null; onClose: () => void }) {
  return (
    <Modal
      opened={model !== null}
      onClose={onClose}
      title={model ? `Test ${model.name}` : ''}
      centered
      size="lg"
    >
      {model ? <TestForm key={model.id} model={model} /> : null}
    </Modal>
  );
}
