import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { Provider } from 'react-redux';
import { MemoryRouter } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { PublicUser } from '../../../shared/schemas/users';
import { makeStore } from '../../stores/store';
import UserMenu from './user-menu';

const admin: PublicUser = { _id: 'a1', name: 'Admin', email: 'admin@example.com', isAdmin: true };
const shopper: PublicUser = { _id: 'u1', name: 'Amina', email: 'amina@example.com', isAdmin: false };

let asked: string[] = [];
function stubSummary(openExceptions: number) {
  asked = [];
  vi.stubGlobal('fetch', async (request: Request) => {
    asked.push(new URL(request.url).pathname);
    return Response.json({ openExceptions });
  });
}

function renderMenu(user: PublicUser) {
  render(
    <Provider store={makeStore()}>
      <MemoryRouter>
        <UserMenu user={user} />
      </MemoryRouter>
    </Provider>,
  );
  fireEvent.click(screen.getByRole('button', { name: user.name }));
}

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  localStorage.clear();
});

describe('UserMenu', () => {
  it('gives an admin a Payments item counting the open exceptions, for screen readers too', async () => {
    stubSummary(3);
    renderMenu(admin);
    const item = await screen.findByRole('link', { name: 'Payments 3 open exceptions' });
    expect(item.getAttribute('href')).toBe('/admin/payments');
    expect(screen.getByText('open exceptions', { exact: false }).className).toContain('visually-hidden');
  });

  it('shows no count when nothing waits', async () => {
    stubSummary(0);
    renderMenu(admin);
    await waitFor(() => expect(asked).toContain('/api/admin/payments/summary'));
    expect(screen.getByText('Payments').textContent).toBe('Payments');
  });

  it('never asks about payments for a shopper', async () => {
    stubSummary(3);
    renderMenu(shopper);
    expect(screen.queryByText('Payments')).toBeNull();
    await new Promise((r) => setTimeout(r, 50));
    expect(asked).toEqual([]);
  });
});
