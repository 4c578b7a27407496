import { cleanup, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Provider } from 'react-redux';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { setCredentials } from '../../stores/auth-slice';
import { makeStore } from '../../stores/store';
import ProfileScreen from './profile-screen';

const USER = { _id: 'u1', name: 'Amina', email: 'amina@example.com', isAdmin: false };

let sent: { method: string; url: string; body: unknown }[];
/** The shop's answer to an update, when it refuses one. */
let refusal: { status: number; body: unknown } | null;

beforeEach(() => {
  localStorage.clear();
  sent = [];
  refusal = null;
  // The shop's answers, as the API gives them; every request is recorded.
  vi.stubGlobal('fetch', async (input: Request) => {
    const body = input.method === 'GET' ? undefined : await input.json();
    sent.push({ method: input.method, url: new URL(input.url).pathname, body });
    if (refusal && input.method === 'PUT') {
      return new Response(JSON.stringify(refusal.body), {
        status: refusal.status,
        headers: { 'content-type': 'application/json' },
      });
    }
    const answer = new URL(input.url).pathname.startsWith('/api/orders') ? [] : { ...USER, ...(body as object) };
    return new Response(JSON.stringify(answer), { status: 200, headers: { 'content-type': 'application/json' } });
  });
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

async function renderProfile() {
  const store = makeStore();
  store.dispatch(setCredentials(USER));
  const router = createMemoryRouter([{ path: '/profile', element: <ProfileScreen /> }], { initialEntries: ['/profile'] });
  render(
    <Provider store={store}>
      <RouterProvider router={router} />
    </Provider>,
  );
  // The form shows what the server holds once the profile has loaded.
  await screen.findByText('There are no orders', { exact: false });
  await waitFor(() => expect(sent.some((r) => r.url === '/api/users/u1')).toBe(true));
}

const updates = () => sent.filter((r) => r.method === 'PUT');

describe('the Profile screen', () => {
  it('has a Current password field, required for a new email and sent as currentPassword', async () => {
    const user = userEvent.setup();
    await renderProfile();
    const current = screen.getByLabelText<HTMLInputElement>('Current password');
    expect(current.type).toBe('password');
    expect(current.autocomplete).toBe('current-password');
    expect(current.required).toBe(false);

    const email = screen.getByLabelText<HTMLInputElement>('Email Address');
    await user.clear(email);
    await user.type(email, 'amina.new@example.com');
    expect(current.required).toBe(true);
    await user.type(current, 'my-current-pass');
    await user.click(screen.getByRole('button', { name: 'Update' }));
    await waitFor(() => expect(updates()).toHaveLength(1));
    expect(updates()[0]!.body).toMatchObject({ email: 'amina.new@example.com', currentPassword: 'my-current-pass' });
    // It is not kept after the update.
    await waitFor(() => expect(current.value).toBe(''));
  });

  it('asks for it with a new password, and not for a new name alone', async () => {
    const user = userEvent.setup();
    await renderProfile();
    const current = screen.getByLabelText<HTMLInputElement>('Current password');
    await user.type(screen.getByLabelText('Password'), 'a-new-password');
    expect(current.required).toBe(true);
    await user.clear(screen.getByLabelText('Password'));
    const name = screen.getByLabelText('Name');
    await user.clear(name);
    await user.type(name, 'Amina H');
    expect(current.required).toBe(false);
    await user.click(screen.getByRole('button', { name: 'Update' }));
    await waitFor(() => expect(updates()).toHaveLength(1));
    expect(updates()[0]!.body).not.toHaveProperty('currentPassword');
    expect(updates()[0]!.body).toMatchObject({ name: 'Amina H' });
  });

  it('shows what the server refused under the field it is about', async () => {
    const user = userEvent.setup();
    await renderProfile();
    refusal = {
      status: 400,
      body: {
        errors: [
          { msg: 'Your current password is not correct', path: 'currentPassword' },
          { msg: 'An account with this email already exists', path: 'email' },
        ],
      },
    };
    const email = screen.getByLabelText<HTMLInputElement>('Email Address');
    await user.clear(email);
    await user.type(email, 'taken@example.com');
    await user.type(screen.getByLabelText('Current password'), 'not-my-pass');
    await user.click(screen.getByRole('button', { name: 'Update' }));
    await waitFor(() => expect(updates()).toHaveLength(1));
    const current = screen.getByLabelText('Current password');
    await waitFor(() => expect(current.getAttribute('aria-invalid')).toBe('true'));
    expect(document.getElementById('currentPassword-error')?.textContent).toBe('Your current password is not correct');
    expect(email.getAttribute('aria-invalid')).toBe('true');
    expect(document.getElementById('email-error')?.textContent).toBe('An account with this email already exists');
    expect(screen.getByLabelText('Name').getAttribute('aria-invalid')).toBeNull();
  });
});
