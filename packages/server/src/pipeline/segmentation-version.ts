/**
 * Which segmentation cut a source's snippets, kept per source (sources.segmentation, migration
 * 21). 1: the overlap was a word-boundary tail of the text before (snippets opened mid-sentence);
 * 2: the overlap is whole sentences; 3: pages lose their furniture (edit links, infoboxes,
 * reference lists, share bars…) and snippets never span two sections (migration 26). A sync re-cuts a web source of an older version even when
 * its page is unchanged. Raising it: a migration that re-creates the trigger
 * sources_segmentation_ai with the new number (a new source is cut by the running code).
 */
export const SEGMENTATION_VERSION = 3;
