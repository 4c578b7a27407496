import { lazy, Suspense, useState } from 'react';
import Collapse from 'react-bootstrap/Collapse';
import { Link, NavLink, useLocation } from 'react-router';
import { CartIcon, UserIcon } from '../../components/icons';
import { paths } from '../../config/paths';
import { useShopSettings } from '../../lib/shop-settings';
import { cartCount } from '../../stores/cart-slice';
import { useAppSelector } from '../../stores/store';
import SearchBox from './search-box';

// The signed-in user's menu needs Bootstrap's dropdown (and Popper): a visitor never downloads it.
const UserMenu = lazy(() => import('./user-menu'));

/**
 * Bootstrap's navbar written as markup (react-bootstrap's Navbar brings its offcanvas and modal
 * code into the first download). On a wide screen it is one row: brand, search, Cart, account.
 * Below `lg` the shop is used with a thumb: the brand, the cart as an icon with its badge and the
 * Menu button on the first row, the search on its own full-width row, both always in view; only
 * the account (Sign In, or the user's menu) folds under Menu, and folds again after a link is
 * followed. One search box and one cart link serve both layouts: styles.css only moves them.
 */
export default function Header() {
  const user = useAppSelector((s) => s.auth.user);
  const { shopName } = useShopSettings();
  const count = useAppSelector((s) => cartCount(s.cart));
  const { pathname, search } = useLocation();
  const here = pathname + search;
  const [expanded, setExpanded] = useState(false);
  const [shownAt, setShownAt] = useState(here);
  // A new page (a link, a search, Log Out) closes the phone's menu, in the render that shows it.
  // An effect would run after that render, and could close a menu opened in the meantime.
  if (shownAt !== here) {
    setShownAt(here);
    setExpanded(false);
  }

  return (
    <header>
      <nav className="navbar navbar-expand-lg navbar-dark bg-dark py-2 shop-header">
        <div className="container">
          <Link to={paths.home} className="navbar-brand fw-bold brand">
            {shopName}
          </Link>
          <SearchBox />
          <div className="navbar-nav ms-auto header-cart">
            <NavLink to={paths.cart} className="nav-link d-flex align-items-center gap-1">
              <CartIcon className="header-cart-icon" /> <span className="header-cart-label">Cart</span>
              {count > 0 && (
                <>
                  <span className="badge rounded-pill bg-success ms-1">{count}</span>
                  <span className="visually-hidden">{count === 1 ? 'item in cart' : 'items in cart'}</span>
                </>
              )}
            </NavLink>
          </div>
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
            <div className="navbar-collapse header-account" id="main-nav">
              <div className="navbar-nav align-items-lg-center">
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
