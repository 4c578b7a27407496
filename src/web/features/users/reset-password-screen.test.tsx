import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { Provider } from 'react-redux';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { makeStore } from '../../stores/store';
import ResetPasswordScreen from './reset-password-screen';

/** The shop's answer to the reset. */
let answer: { status: number; body: unknown };

beforeEach(() => {
  answer = { status: 200, body: { msg: 'Password updated' } };
  vi.stubGlobal('fetch', async () => Response.json(answer.body, { status: answer.status }));
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  localStorage.clear();
});

function renderReset() {
  const router = createMemoryRouter(
    [
      { path: '/reset-password/:token', element: <ResetPasswordScreen /> },
      { path: '/login', element: <p>Sign in</p> },
    ],
    { initialEntries: ['/reset-password/t0ken'] },
  );
  render(
    <Provider store={makeStore()}>
      <RouterProvider router={router} />
    </Provider>,
  );
}

function send(password = 'a-new-password-1') {
  fireEvent.change(screen.getByLabelText('New Password'), { target: { value: password } });
  fireEvent.change(screen.getByLabelText('Confirm Password'), { target: { value: password } });
  fireEvent.click(screen.getByRole('button', { name: 'Reset Password' }));
}

describe('ResetPasswordScreen', () => {
  it('says the link is unusable, with a way to a new one, when the server refuses the token', async () => {
    answer = { status: 400, body: { errors: [{ msg: 'This reset link is invalid or has expired' }] } };
    renderReset();
    send();
    expect(await screen.findByText('This reset link is invalid or has expired')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Ask for a new reset link' })).toBeTruthy();
    expect(screen.getByLabelText('New Password').getAttribute('aria-invalid')).toBeNull();
  });

  it('shows a refused password under its field, not as a broken link', async () => {
    answer = { status: 400, body: { errors: [{ msg: 'Password is too common', path: 'password' }] } };
    renderReset();
    send();
    const password = screen.getByLabelText('New Password');
    await waitFor(() => expect(password.getAttribute('aria-invalid')).toBe('true'));
    expect(document.getElementById('password-error')?.textContent).toBe('Password is too common');
    expect(screen.queryByRole('link', { name: 'Ask for a new reset link' })).toBeNull();
    expect(screen.getByRole('link', { name: 'Ask for a new one' })).toBeTruthy();
  });

  it('goes on to sign in once the password is changed', async () => {
    renderReset();
    send();
    expect(await screen.findByText('Sign in')).toBeTruthy();
  });
});
