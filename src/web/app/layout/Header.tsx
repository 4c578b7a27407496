import { lazy, Suspense, useEffect, useState } from 'react';
import Collapse from 'react-bootstrap/Collapse';
import { Link, NavLink, useLocation } from 'react-router';
import { CartIcon, UserIcon } from '../../components/icons';
import { cartCount } from '../../features/cart/cartSlice';
import { useShopSettings } from '../../features/settings/api';
import { paths } from '../paths';
import { useAppSelector } from '../store';
import SearchBox from './SearchBox';

// The signed-in user's menu needs Bootstrap's dropdown (and Popper): a visitor never downloads it.
const UserMenu = lazy(() => import('./UserMenu'));

/**
 * Bootstrap's navbar written as markup (react-bootstrap's Navbar brings its offcanvas and modal
 * code into the first download). On a phone the links fold under the Menu button and fold again
 * after a link is followed.
 */
export default function Header() {
  const user = useAppSelector((s) => s.auth.user);
  const { shopName } = useShopSettings();
  const count = useAppSelector((s) => cartCount(s.cart));
  const [expanded, setExpanded] = useState(false);
  const { pathname, search } = useLocation();
  // A new page (a link, a search, Log Out) closes the phone's menu.
  // biome-ignore lint/correctness/useExhaustiveDependencies: the address is the trigger, not a value used
  useEffect(() => setExpanded(false), [pathname, search]);

  return (
    <header>
      <nav className="navbar navbar-expand-lg navbar-dark bg-dark py-2">
        <div className="container">
          <Link to={paths.home} className="navbar-brand fw-bold brand">
            {shopName}
          </Link>
          <button
            type="button"
            className={`navbar-toggler${expanded ? '' : ' collapsed'}`}
            aria-controls="main-nav"
            aria-expanded={expanded}
            aria-label="Menu"
            onClick={() => setExpanded((open) => !open)}
          >
            <span className="navbar-toggler-icon" />
          </button>
          <Collapse in={expanded}>
            <div className="navbar-collapse" id="main-nav">
              <SearchBox />
              <div className="navbar-nav ms-auto align-items-lg-center">
                <NavLink to={paths.cart} className="nav-link d-flex align-items-center gap-1">
                  <CartIcon /> Cart
                  {count > 0 && (
                    <>
                      <span className="badge rounded-pill bg-success ms-1">{count}</span>
                      <span className="visually-hidden">items in cart</span>
                    </>
                  )}
                </NavLink>
                {user ? (
                  <Suspense
                    fallback={
                      // The menu's button as it will look, while its code arrives.
                      <div className="nav-item dropdown">
                        <span className="nav-link dropdown-toggle">{user.name}</span>
                      </div>
                    }
                  >
                    <UserMenu user={user} />
                  </Suspense>
                ) : (
                  <NavLink to={paths.login()} className="nav-link d-flex align-items-center gap-1">
                    <UserIcon /> Sign In
                  </NavLink>
                )}
              </div>
            </div>
          </Collapse>
        </div>
      </nav>
    </header>
  );
}
