import { cleanup, render, screen } from '@testing-library/react';
import { Provider } from 'react-redux';
import { afterEach, describe, expect, it } from 'vitest';
import type { Review } from '../../../shared/schemas/products';
import type { PublicUser } from '../../../shared/schemas/users';
import { setCredentials } from '../../stores/auth-slice';
import { makeStore } from '../../stores/store';
import ReviewList, { canDeleteReview } from './review-list';

const review = (id: string, author: string | null, name: string): Review => ({
  _id: id,
  name,
  rating: 4,
  comment: `Comment by ${name}`,
  user: author,
  createdAt: '2026-11-21T05:31:03.559Z',
});
const amina: PublicUser = { _id: 'u1', name: 'Amina', email: 'amina@example.com', isAdmin: false };
const admin: PublicUser = { _id: 'a1', name: 'Admin', email: 'admin@example.com', isAdmin: true };
const reviews = [review('r1', 'u1', 'Amina'), review('r2', 'u2', 'Brian'), review('r3', null, 'Gone')];

function renderList(user: PublicUser | null, list: Review[] = reviews) {
  const store = makeStore();
  if (user) store.dispatch(setCredentials(user));
  render(
    <Provider store={store}>
      <ReviewList productId="p1" reviews={list} />
    </Provider>,
  );
}

afterEach(() => {
  cleanup();
  localStorage.clear();
});

describe('canDeleteReview', () => {
  it('lets the author and admins delete, nobody else', () => {
    expect(canDeleteReview(reviews[0]!, amina)).toBe(true);
    expect(canDeleteReview(reviews[1]!, amina)).toBe(false);
    expect(canDeleteReview(reviews[2]!, amina)).toBe(false);
    expect(canDeleteReview(reviews[1]!, admin)).toBe(true);
    expect(canDeleteReview(reviews[2]!, admin)).toBe(true);
    expect(canDeleteReview(reviews[0]!, null)).toBe(false);
  });
});

describe('ReviewList', () => {
  it('says so when there are no reviews', () => {
    renderList(null, []);
    expect(screen.getByText('No Reviews')).toBeTruthy();
  });

  it('shows each review with its date cut to 10 characters', () => {
    renderList(null);
    expect(screen.getByText('Comment by Brian')).toBeTruthy();
    expect(screen.getAllByText('2026-11-21')).toHaveLength(3);
    expect(screen.queryByRole('button', { name: 'Delete' })).toBeNull();
  });

  it('shows Delete only on the signed-in author’s review', () => {
    renderList(amina);
    expect(screen.getAllByRole('button', { name: 'Delete' })).toHaveLength(1);
  });

  it('shows Delete on every review to an admin', () => {
    renderList(admin);
    expect(screen.getAllByRole('button', { name: 'Delete' })).toHaveLength(3);
  });
});
