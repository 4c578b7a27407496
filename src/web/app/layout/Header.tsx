import Badge from 'react-bootstrap/Badge';
import Container from 'react-bootstrap/Container';
import Nav from 'react-bootstrap/Nav';
import Navbar from 'react-bootstrap/Navbar';
import NavDropdown from 'react-bootstrap/NavDropdown';
import { Link, NavLink, useNavigate } from 'react-router';
import { SHOP_NAME } from '../../../shared/constants';
import { CartIcon, UserIcon } from '../../components/icons';
import { useLogoutMutation } from '../../features/account/api';
import { signedOut } from '../../features/account/authSlice';
import { cartCount, resetCart } from '../../features/cart/cartSlice';
import { toastErrors } from '../../lib/toast';
import { api } from '../api';
import { paths } from '../paths';
import { useAppDispatch, useAppSelector } from '../store';
import SearchBox from './SearchBox';

export default function Header() {
  const user = useAppSelector((s) => s.auth.user);
  const count = useAppSelector((s) => cartCount(s.cart));
  const dispatch = useAppDispatch();
  const navigate = useNavigate();
  const [logout] = useLogoutMutation();

  /** Log Out ends the session, clears the cart and shipping data and the user, then goes to /login (spec §2). */
  async function logOut() {
    try {
      await logout().unwrap();
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
    <header>
      <Navbar bg="dark" variant="dark" expand="lg" collapseOnSelect className="py-2">
        <Container>
          <Navbar.Brand as={Link} to={paths.home} className="fw-bold brand">
            {SHOP_NAME}
          </Navbar.Brand>
          <Navbar.Toggle aria-controls="main-nav" aria-label="Menu" />
          <Navbar.Collapse id="main-nav">
            <SearchBox />
            <Nav className="ms-auto align-items-lg-center">
              <Nav.Link as={NavLink} to={paths.cart} className="d-flex align-items-center gap-1">
                <CartIcon /> Cart
                {count > 0 && (
                  <Badge pill bg="success" className="ms-1" aria-label={`${count} items in cart`}>
                    {count}
                  </Badge>
                )}
              </Nav.Link>
              {user ? (
                <NavDropdown title={user.name} id="user-menu" align="end">
                  <NavDropdown.Item as={Link} to={paths.profile}>
                    Profile
                  </NavDropdown.Item>
                  {user.isAdmin && (
                    <>
                      <NavDropdown.Divider />
                      <NavDropdown.Header>Admin</NavDropdown.Header>
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
                    </>
                  )}
                  <NavDropdown.Divider />
                  <NavDropdown.Item as="button" onClick={logOut}>
                    Log Out
                  </NavDropdown.Item>
                </NavDropdown>
              ) : (
                <Nav.Link as={NavLink} to={paths.login()} className="d-flex align-items-center gap-1">
                  <UserIcon /> Sign In
                </Nav.Link>
              )}
            </Nav>
          </Navbar.Collapse>
        </Container>
      </Navbar>
    </header>
  );
}
