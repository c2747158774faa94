import { useState } from 'react';
import { Button, Group, Text } from '@mantine/core';
import { IconChevronLeft, IconChevronRight } from '@tabler/icons-react';
import { formatNumber } from '../lib/format';

/**
 * Keyset paging, newest first: the cursors of the pages before the current one, so Newer goes
 * back the way Older came. Page 1 has no cursor.
 */
export function useCursorPages() {
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  return {
    cursor: cursors.at(-1) ?? null,
    pageNumber: cursors.length,
    newer: () => setCursors((c) => (c.length > 1 ? c.slice(0, -1) : c)),
    older: (next: string) => setCursors((c) => [...c, next]),
    /** Back to page 1, as a changed filter wants. */
    reset: () => setCursors([null]),
  };
}
export type CursorPages = ReturnType<typeof useCursorPages>;

/** Newer / Older buttons (and the page number when asked) for a `useCursorPages` listing. */
export function CursorPager({
  pages,
  next,
  showPage = false,
  olderDisabled = false,
}: {
  pages: CursorPages;
  /** The cursor of the page after the current one; none on the last page. */
  next: string | null | undefined;
  showPage?: boolean;
  /** Also keeps Older off, e.g. while the shown page is the previous one's placeholder. */
  olderDisabled?: boolean;
}) {
  return (
    <Group justify="flex-end" gap="xs">
      <Button
        variant="default"
        size="xs"
        leftSection={<IconChevronLeft size={14} />}
        disabled={pages.pageNumber <= 1}
        onClick={pages.newer}
      >
        Newer
      </Button>
      {showPage ? (
        <Text size="xs" className="tabular-nums">
          Page {formatNumber(pages.pageNumber)}
        </Text>
      ) : null}
      <Button
        variant="default"
        size="xs"
        rightSection={<IconChevronRight size={14} />}
        disabled={!next || olderDisabled}
        onClick={() => {
          if (next) pages.older(next);
        }}
      >
        Older
      </Button>
    </Group>
  );
}
