import { cleanup, render, screen } from '@testing-library/react';
import { Provider } from 'react-redux';
import { createMemoryRouter, RouterProvider, useLocation } from 'react-router';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LoginState } from '../config/paths';
import { setCredentials } from '../stores/auth-slice';
import { makeStore } from '../stores/store';
import { AdminRoute, PrivateRoute } from './guards';

afterEach(cleanup);
beforeEach(() => localStorage.clear());

function LoginProbe() {
  const location = useLocation();
  const state = location.state as LoginState | null;
  return <p>{`login ${location.search} admin=${String(state?.adminRequired ?? false)}`}</p>;
}

function renderAt(path: string, user?: { isAdmin: boolean }) {
  const store = makeStore();
  if (user) store.dispatch(setCredentials({ _id: 'u1', name: 'Amina', email: 'amina@example.com', isAdmin: user.isAdmin }));
  const router = createMemoryRouter(
    [
      { element: <PrivateRoute />, children: [{ path: '/profile', element: <p>profile screen</p> }] },
      { element: <AdminRoute />, children: [{ path: '/admin/orderlist', element: <p>admin screen</p> }] },
      { path: '/login', element: <LoginProbe /> },
    ],
    { initialEntries: [path] },
  );
  render(
    <Provider store={store}>
      <RouterProvider router={router} />
    </Provider>,
  );
}

describe('route guards', () => {
  it('sends a guest from a private screen to sign in, coming back afterwards', () => {
    renderAt('/profile');
    expect(screen.getByText('login ?redirect=/profile admin=false')).toBeTruthy();
  });

  it('lets a signed-in shopper in', () => {
    renderAt('/profile', { isAdmin: false });
    expect(screen.getByText('profile screen')).toBeTruthy();
  });

  it('sends guests and non-admins from admin screens to /login, asking for an admin account', () => {
    renderAt('/admin/orderlist');
    expect(screen.getByText('login ?redirect=/admin/orderlist admin=true')).toBeTruthy();
    cleanup();
    renderAt('/admin/orderlist', { isAdmin: false });
    expect(screen.getByText(/^login .* admin=true$/)).toBeTruthy();
  });

  it('lets an admin in', () => {
    renderAt('/admin/orderlist', { isAdmin: true });
    expect(screen.getByText('admin screen')).toBeTruthy();
  });
});
