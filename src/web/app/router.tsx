import { createBrowserRouter } from 'react-router';
import Loader from '../components/Loader';
import HomeScreen from '../features/catalog/HomeScreen';
import { AdminRoute, PrivateRoute } from './guards';
import Layout from './layout/Layout';

/**
 * The routes of the specification (§2). The home listing ships in the first bundle; every other
 * screen loads when first visited, so a shopper on mobile data downloads only what they use.
 */
type ScreenModule = { default: React.ComponentType };
const screen = (load: () => Promise<ScreenModule>) => async () => ({ Component: (await load()).default });

export const router = createBrowserRouter([
  {
    element: <Layout />,
    // Shown while the first lazily loaded screen arrives.
    hydrateFallbackElement: <Loader />,
    children: [
      { path: '/', element: <HomeScreen /> },
      { path: '/page/:pageNumber', element: <HomeScreen /> },
      { path: '/search/:keyword', element: <HomeScreen /> },
      { path: '/search/:keyword/page/:pageNumber', element: <HomeScreen /> },
      { path: '/products/:id', lazy: screen(() => import('../features/catalog/ProductScreen')) },
      { path: '/cart', lazy: screen(() => import('../features/cart/CartScreen')) },
      { path: '/login', lazy: screen(() => import('../features/account/LoginScreen')) },
      { path: '/register', lazy: screen(() => import('../features/account/RegisterScreen')) },
      { path: '/forgot-password', lazy: screen(() => import('../features/account/ForgotPasswordScreen')) },
      { path: '/reset-password/:token', lazy: screen(() => import('../features/account/ResetPasswordScreen')) },
      {
        element: <PrivateRoute />,
        children: [
          { path: '/profile', lazy: screen(() => import('../features/account/ProfileScreen')) },
          { path: '/shipping', lazy: screen(() => import('../features/checkout/ShippingScreen')) },
          { path: '/place-order', lazy: screen(() => import('../features/checkout/PlaceOrderScreen')) },
          { path: '/order/:id', lazy: screen(() => import('../features/orders/OrderScreen')) },
        ],
      },
      {
        element: <AdminRoute />,
        children: [
          { path: '/admin/orderlist', lazy: screen(() => import('../features/admin/OrderListScreen')) },
          { path: '/admin/productlist', lazy: screen(() => import('../features/admin/ProductListScreen')) },
          { path: '/admin/productlist/page/:pageNumber', lazy: screen(() => import('../features/admin/ProductListScreen')) },
          { path: '/admin/product/:id/edit', lazy: screen(() => import('../features/admin/ProductEditScreen')) },
          { path: '/admin/userlist', lazy: screen(() => import('../features/admin/UserListScreen')) },
          { path: '/admin/mail', lazy: screen(() => import('../features/admin/MailListScreen')) },
        ],
      },
      // Outside the admin guard, as the specification places it; the server refuses non-admins.
      { path: '/admin/user/:id', lazy: screen(() => import('../features/admin/UserEditScreen')) },
      { path: '*', lazy: screen(() => import('../components/NotFoundScreen')) },
    ],
  },
]);
