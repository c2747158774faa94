import { Anchor } from '@mantine/core';

/** A page's URL, opened in a new tab: monospace on one line, the whole of it in its title. */
export function UrlLink({ url }: { url: string }) {
  return (
    <Anchor
      href={url}
      target="_blank"
      rel="noreferrer"
      size="xs"
      ff="monospace"
      lineClamp={1}
      title={url}
    >
      {url}
    </Anchor>
  );
}
