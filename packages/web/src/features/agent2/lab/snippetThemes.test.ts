import { describe, expect, it } from 'vitest';
import { json, mockFetch } from '../../../test/fetchMock';
import { page, snippet } from '../../snippets/snippets.fixtures';
import { fetchSnippetSources, SOURCE_TEXT_MAX } from './snippetThemes';

describe('the snippet sources', () => {
  it('asks for the best few of each theme and keeps what answered', async () => {
    const server = mockFetch({
      'GET /snippets': (call) =>
        call.query.theme === 'philosophy'
          ? json({ detail: 'boom' }, 500)
          : json(page([snippet(call.query.theme!.length, { theme: call.query.theme! })])),
    });
    const sources = await fetchSnippetSources();
    expect(server.callsTo('GET', '/snippets').map((c) => c.query.theme)).toEqual([
      'science',
      'technology',
      'philosophy',
      'general',
    ]);
    expect(server.callsTo('GET', '/snippets')[0]!.query).toMatchObject({
      per_page: '5',
      sort_by: 'quality_score',
      order: 'desc',
    });
    expect(sources.map((s) => [s.id, s.theme])).toEqual([
      [7, 'science'],
      [10, 'technology'],
      [7, 'general'],
    ]);
    expect(sources[0]!.text).toBe(snippet(7).text);
  });

  it('keeps the start of a long text', async () => {
    mockFetch({ 'GET /snippets': json(page([snippet(1, { text: 'a'.repeat(1000) })])) });
    const [source] = await fetchSnippetSources();
    expect(source!.text).toBe(`${'a'.repeat(SOURCE_TEXT_MAX)}…`);
  });

  it('gives none when the server cannot answer', async () => {
    mockFetch({});
    expect(await fetchSnippetSources()).toEqual([]);
  });
});
