import NavbarContext, { type NavbarContextType } from 'react-bootstrap/NavbarContext';
import NavDropdown from 'react-bootstrap/NavDropdown';
import { Link, useNavigate } from 'react-router';
import type { PublicUser } from '../../../shared/schemas/users';
import { paths } from '../../config/paths';
import { LEDGER_SUMMARY_POLL_MS, useGetLedgerSummaryQuery } from '../../features/payments/api';
import { useLogoutMutation } from '../../features/users/api';
import { api } from '../../lib/api';
import { toastErrors, toastSuccess } from '../../lib/toast';
import { signedOut } from '../../stores/auth-slice';
import { resetCart } from '../../stores/cart-slice';
import { useAppDispatch } from '../../stores/store';
import '../../styles/dropdown.scss';

/**
 * The header is Bootstrap's navbar: with its context the menu opens in place inside the folded
 * phone menu, as Bootstrap styles navbar dropdowns, instead of floating over the page.
 */
const IN_NAVBAR: NavbarContextType = { expanded: false, onToggle: () => {}, bsPrefix: 'navbar', expand: 'lg' };

/** The signed-in user's menu: profile, the admin screens for an admin, and Log Out. */
export default function UserMenu({ user }: { user: PublicUser }) {
  const dispatch = useAppDispatch();
  const navigate = useNavigate();
  const [logout] = useLogoutMutation();
  // Only an admin asks; a failure leaves the badge off rather than troubling the menu.
  const { data: ledger } = useGetLedgerSummaryQuery(undefined, {
    skip: !user.isAdmin,
    pollingInterval: LEDGER_SUMMARY_POLL_MS,
  });
  const openExceptions = ledger?.openExceptions ?? 0;

  /** Log Out ends the session, clears the cart and shipping data and the user, then goes to /login (docs/product-rules.md, Screens). */
  async function logOut() {
    try {
      const { msg } = await logout().unwrap();
      toastSuccess(msg);
    } catch (error) {
      // Even if the server cannot be reached, this browser forgets the shopper.
      toastErrors(error);
    }
    dispatch(signedOut());
    dispatch(resetCart());
    dispatch(api.util.resetApiState());
    navigate(paths.login());
  }

  return (
    <NavbarContext.Provider value={IN_NAVBAR}>
      <NavDropdown title={user.name} id="user-menu" align="end">
        <NavDropdown.Item as={Link} to={paths.profile}>
          Profile
        </NavDropdown.Item>
        {user.isAdmin && (
          <>
            <NavDropdown.Divider />
            <NavDropdown.Header>Admin</NavDropdown.Header>
            <NavDropdown.Item as={Link} to={paths.admin.dashboard}>
              Dashboard
            </NavDropdown.Item>
            <NavDropdown.Item as={Link} to={paths.admin.products()}>
              Products
            </NavDropdown.Item>
            <NavDropdown.Item as={Link} to={paths.admin.users}>
              Users
            </NavDropdown.Item>
            <NavDropdown.Item as={Link} to={paths.admin.orders}>
              Orders
            </NavDropdown.Item>
            <NavDropdown.Item as={Link} to={paths.admin.mail}>
              Mail
            </NavDropdown.Item>
            <NavDropdown.Item
              as={Link}
              to={paths.admin.payments()}
              className="d-flex align-items-center justify-content-between gap-2"
            >
              Payments
              {openExceptions > 0 && (
                <span className="badge rounded-pill bg-danger">
                  {openExceptions}
                  <span className="visually-hidden">{openExceptions === 1 ? ' open exception' : ' open exceptions'}</span>
                </span>
              )}
            </NavDropdown.Item>
            <NavDropdown.Item as={Link} to={paths.admin.settings}>
              Settings
            </NavDropdown.Item>
          </>
        )}
        <NavDropdown.Divider />
        <NavDropdown.Item as="button" onClick={logOut}>
          Log Out
        </NavDropdown.Item>
      </NavDropdown>
    </NavbarContext.Provider>
  );
}
