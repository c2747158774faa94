import { describe, expect, it } from 'vitest';
import { render, screen } from '@testing-library/react';
import { formatDate } from '../lib/format';
import { DateTime } from './DateTime';

describe('DateTime', () => {
  it('shows local time with its zone, UTC on hover, and the instant for machines', () => {
    const at = '2026-11-22T12:05:09.000Z';
    render(<DateTime value={at} />);
    const time = screen.getByText(formatDate(at));
    expect(time.tagName).toBe('TIME');
    expect(time).toHaveAttribute('datetime', at);
    expect(time).toHaveAttribute('title', '2026-11-22 12:05:09 UTC');
  });

  it('shows - for a missing or invalid date, with no hover', () => {
    const { container } = render(
      <>
        <DateTime value={null} />
        <DateTime value="soon" />
      </>,
    );
    expect(container.textContent).toBe('--');
    expect(container.querySelector('time')).toBeNull();
  });
});
