import { describe, expect, it } from 'vitest';
import { describeUserAgent } from './userAgent';

describe('describeUserAgent', () => {
  it('names the browser, its major version and the system', () => {
    expect(
      describeUserAgent('Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0'),
    ).toBe('Firefox 133 on Linux');
    expect(
      describeUserAgent(
        'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0',
      ),
    ).toBe('Edge 131 on Windows');
    expect(
      describeUserAgent(
        'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15',
      ),
    ).toBe('Safari 17 on macOS');
    expect(
      describeUserAgent(
        'Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Mobile Safari/537.36',
      ),
    ).toBe('Chrome 130 on Android');
  });

  it('falls back to the first word of a program and to "Unknown client"', () => {
    expect(describeUserAgent('python-requests/2.32.3')).toBe('python-requests/2.32.3');
    expect(describeUserAgent('curl/8.5.0')).toBe('curl 8');
    expect(describeUserAgent(null)).toBe('Unknown client');
    expect(describeUserAgent('   ')).toBe('Unknown client');
  });

  it('reads a bounded part of a hostile header', () => {
    const long = `${'A'.repeat(100_000)} Firefox/99`;
    expect(describeUserAgent(long)).toHaveLength(60);
  });
});
