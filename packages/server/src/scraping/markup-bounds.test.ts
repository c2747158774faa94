import { parseHTML } from 'linkedom';
import { describe, expect, it } from 'vitest';
import { bestGrowthVersusLinear, describeGrowth } from '@adam/contracts/testing';
import { extractContent } from './extract.js';
import { isFetchError } from './fetch-error.js';
import { assertMarkupBounded, MARKUP_LIMITS, measureMarkup } from './markup-bounds.js';

const URL_ = 'https://hostile.example/page';

/** Depth and element count of the tree linkedom (the extraction parser) really builds. */
function parsedShape(fragment: string) {
  const { document } = parseHTML(
    `<!DOCTYPE html><html><head></head><body>${fragment}</body></html>`,
  ) as unknown as { document: { body: { children: Iterable<unknown> } } };
  let depth = 0;
  let elements = -1; // the body itself
  const walk = (el: { children: Iterable<unknown> }, d: number) => {
    elements++;
    depth = Math.max(depth, d);
    for (const c of el.children) walk(c as typeof el, d + 1);
  };
  walk(document.body, 0);
  return { depth, elements };
}

const thrown = (f: () => unknown): unknown => {
  try {
    f();
  } catch (e) {
    return e;
  }
  throw new Error('did not throw');
};

describe('measureMarkup', () => {
  it.each([
    ['nested divs', '<div>'.repeat(50)],
    ['unclosed paragraphs (each closes the last)', '<p>x'.repeat(50)],
    ['unclosed divs holding paragraphs', '<div><p>a'.repeat(30)],
    ['a list of unclosed items', `<ul>${'<li>a'.repeat(40)}</ul>`],
    ['a table of unclosed rows and cells', `<table>${'<tr><td>a<td>b'.repeat(20)}</table>`],
    ['self-closing tags in SVG', `<svg>${'<path d="x"/>'.repeat(30)}</svg>`],
    ['self-closing divs (which nest in HTML)', '<div/>'.repeat(20)],
    ['a textarea holding tags', `<textarea>${'<div>'.repeat(20)}</textarea><b>x</b>`],
    ['a script holding tags', '<script>if (a<b) "<div>"</script><div><span>x</span></div>'],
    ['quoted > and tags in attributes', `<div a="x>y" b='<div>'><span c=d"e>t</span></div>`],
    ['a comment holding tags', '<!-- <div><div> --><div></div>'],
    ['stray end tags', '</p></p><div></span></div>'],
    ['end tags that match nothing', `${'<span>'.repeat(10)}${'</div>'.repeat(5)}<i><i>`],
    ['void elements', '<div><br><img><p>x<hr>y'],
    ['foreign content back to HTML', '<svg><foreignObject><div/><div/></foreignObject></svg>'],
    ['misnested formatting', '<b><i></b></i><u>'],
  ])('counts the tree the parser builds: %s', (_name, html) => {
    expect(measureMarkup(html)).toEqual(parsedShape(html));
  });

  it('time grows linearly with the input, on adversarial inputs too', () => {
    const inputs: [string, (n: number) => string][] = [
      ['deep nesting', (n) => '<div>'.repeat(n)],
      ['nesting closed again', (n) => '<div>'.repeat(n) + '</div>'.repeat(n)],
      ['unmatched end tags over a deep stack', (n) => '<b>'.repeat(n) + '</i>'.repeat(n)],
      ['unterminated quotes', (n) => '<a b="'.repeat(n)],
      ['raw text with many near-end tags', (n) => `<script>${'</scrip'.repeat(n)}`],
      ['tags without >', (n) => '<a x=1 '.repeat(n)],
    ];
    // Against a plain character loop over the same inputs, measured the same way in the same
    // run: a busy machine slows both alike; a quadratic cost grows ~16× more than the loop.
    for (const [name, make] of inputs) {
      const g = bestGrowthVersusLinear(measureMarkup, make, { n: 1_000 });
      expect(g.excess, `${name}: ${describeGrowth(g)}`).toBeLessThan(6);
    }
  });
});

describe('assertMarkupBounded', () => {
  it('refuses a page nesting 40,000 elements, naming its depth and the limit', () => {
    const e = thrown(() => assertMarkupBounded('<div>'.repeat(40_000), URL_));
    expect(isFetchError(e, 'unsupported_content')).toBe(true);
    expect((e as Error).message).toBe(
      `${URL_}: the page nests elements 40,000 levels deep; the limit is ${MARKUP_LIMITS.depth}`,
    );
  });

  it('refuses a few thousand unclosed <div><p> as the nesting they make', () => {
    const e = thrown(() => assertMarkupBounded('<div><p>text '.repeat(3000), URL_));
    expect((e as Error).message).toContain('nests elements 3,001 levels deep');
  });

  it('refuses a page with more elements than the limit, however flat', () => {
    const html = '<span>a</span>'.repeat(MARKUP_LIMITS.elements + 1);
    const e = thrown(() => assertMarkupBounded(html, URL_));
    expect((e as Error).message).toBe(
      `${URL_}: the page holds 100,001 elements; the limit is 100,000`,
    );
  });

  it('accepts a page at the limits, and thousands of unclosed paragraphs (they do not nest)', () => {
    const atDepth = '<div>'.repeat(MARKUP_LIMITS.depth - 1) + '<p>x';
    expect(() => assertMarkupBounded(atDepth, URL_)).not.toThrow();
    expect(() => assertMarkupBounded('<p>text '.repeat(5000), URL_)).not.toThrow();
  });

  it('runs before extraction builds a DOM: the hostile page fails at once', () => {
    const e = thrown(() => extractContent(`<html><body>${'<div>'.repeat(40_000)}`, URL_));
    expect(isFetchError(e, 'unsupported_content')).toBe(true);
    expect((e as Error).message).toContain('levels deep');
  });
});
