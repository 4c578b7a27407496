import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import Rating, { halfSteps } from './rating';

afterEach(cleanup);

describe('Rating', () => {
  it('rounds to half steps up to 5', () => {
    expect([0, 0.2, 0.3, 2.74, 2.76, 4.5, 4.9, 7].map(halfSteps)).toEqual([0, 0, 0.5, 2.5, 3, 4.5, 5, 5]);
  });

  it.each([
    [3.5, 3, 1, 1],
    [4, 4, 0, 1],
    [0, 0, 0, 5],
    [4.8, 5, 0, 0],
  ])('draws %s as %i full, %i half and %i empty stars', (value, full, half, empty) => {
    const { container } = render(<Rating value={value} text="2 reviews" />);
    const stars = container.querySelectorAll('.rating-stars svg');
    expect(stars).toHaveLength(5);
    const kinds = [...stars].map((svg) =>
      svg.querySelector('clipPath') ? 'half' : svg.querySelector('path[fill="none"]') ? 'empty' : 'full',
    );
    expect(kinds.filter((k) => k === 'full')).toHaveLength(full);
    expect(kinds.filter((k) => k === 'half')).toHaveLength(half);
    expect(kinds.filter((k) => k === 'empty')).toHaveLength(empty);
    expect(screen.getByRole('img', { name: `Rated ${halfSteps(value)} out of 5` })).toBeTruthy();
    expect(screen.getByText('2 reviews')).toBeTruthy();
  });
});
