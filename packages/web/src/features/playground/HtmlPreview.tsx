import { useMemo, useState } from 'react';
import { Box, Code, Group, ScrollArea, SegmentedControl, Stack, Text, Title } from '@mantine/core';
import { inertPreviewDocument } from './urlFetch';

type View = 'rendered' | 'source';
const HEIGHT = 560;

/**
 * The raw HTML of a scraped page (spec 001 §2.9), rendered inert or as its source text. The
 * rendered view is a frame sandboxed without any permission, holding a document whose policy
 * blocks every request: no script runs and nothing is loaded from anywhere.
 */
export function HtmlPreview({ html, truncated }: { html: string | null; truncated?: boolean }) {
  const [view, setView] = useState<View>('rendered');
  const doc = useMemo(() => (html === null ? null : inertPreviewDocument(html)), [html]);
  return (
    <Stack gap="sm" aria-label="Raw HTML preview" role="region">
      <Group justify="space-between" align="center">
        <Title order={4}>Raw HTML preview</Title>
        <SegmentedControl
          size="xs"
          value={view}
          onChange={(v) => setView(v as View)}
          data={[
            { value: 'rendered', label: 'Rendered' },
            { value: 'source', label: 'Source' },
          ]}
          disabled={html === null}
          aria-label="Preview view"
        />
      </Group>
      {html === null || doc === null ? (
        <Box
          h={HEIGHT}
          bd="1px dashed var(--mantine-color-default-border)"
          style={{
            borderRadius: 'var(--mantine-radius-sm)',
            display: 'grid',
            placeItems: 'center',
          }}
        >
          <Text size="sm" c="dimmed" ta="center" maw={320}>
            Scrap a URL to see its raw HTML here.
          </Text>
        </Box>
      ) : view === 'rendered' ? (
        <iframe
          title="Rendered page (inert)"
          sandbox=""
          srcDoc={doc}
          referrerPolicy="no-referrer"
          style={{
            width: '100%',
            height: HEIGHT,
            border: '1px solid var(--mantine-color-default-border)',
            borderRadius: 'var(--mantine-radius-sm)',
            background: 'white',
          }}
        />
      ) : (
        <ScrollArea h={HEIGHT} type="auto" offsetScrollbars>
          <Code
            block
            aria-label="Page source"
            style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}
          >
            {html}
          </Code>
        </ScrollArea>
      )}
      <Text size="xs" c="dimmed">
        {view === 'rendered'
          ? 'Scripts, images, fonts and external stylesheets are blocked in this view.'
          : 'The page as the server received it.'}
        {truncated ? ' Truncated: only the start of a very large page is shown.' : ''}
      </Text>
    </Stack>
  );
}
