import { Navigate, Outlet, useLocation } from 'react-router';
import { type LoginState, paths } from '../config/paths';
import { useAppSelector } from '../stores/store';

/** Screens for signed-in shoppers; guests go to sign in and come back. The server checks again. */
export function PrivateRoute() {
  const user = useAppSelector((s) => s.auth.user);
  const location = useLocation();
  return user ? <Outlet /> : <Navigate to={paths.login(location.pathname + location.search)} replace />;
}

/**
 * The admin screens of the guard group (docs/product-rules.md, Roles): anyone else goes to /login, with the screen
 * they wanted as the redirect. The sign-in screen then asks for an admin account instead of
 * bouncing a signed-in shopper straight back here.
 */
export function AdminRoute() {
  const user = useAppSelector((s) => s.auth.user);
  const location = useLocation();
  if (user?.isAdmin) return <Outlet />;
  const state: LoginState = { adminRequired: true };
  return <Navigate to={paths.login(location.pathname + location.search)} state={state} replace />;
}
