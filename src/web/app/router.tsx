import { type ComponentType, lazy } from 'react';
import { matchPath, Route, Routes } from 'react-router';
import HomeScreen from '../features/catalog/HomeScreen';
import { AdminRoute, PrivateRoute } from './guards';
import Layout from './layout/Layout';

/**
 * The routes of docs/product-rules.md (Screens). The home listing ships in the first bundle; every other
 * screen loads when first visited (the layout's Suspense shows a spinner meanwhile), so a shopper
 * on mobile data downloads only what they use. Declarative routes rather than a data router: the
 * app loads its data with RTK Query, and react-router's data router would add about 17 KB (gzip)
 * to the first download for loaders and actions nothing uses.
 */
type Screen = ComponentType & { preload: () => Promise<void> };

/**
 * A screen loaded when first shown, like React.lazy, that can also be loaded ahead: once loaded it
 * renders at once, without the layout's spinner (main.tsx loads the first screen before the
 * first render, so a visitor never sees a spinner give way to the page).
 */
function lazyScreen(load: () => Promise<{ default: ComponentType }>): Screen {
  let loaded: ComponentType | undefined;
  const remember = async () => {
    const module = await load();
    loaded = module.default;
    return module;
  };
  const Lazy = lazy(remember);
  const Component = () => {
    const Loaded = loaded;
    return Loaded ? <Loaded /> : <Lazy />;
  };
  return Object.assign(Component, {
    preload: async () => {
      await remember();
    },
  });
}

const ProductScreen = lazyScreen(() => import('../features/catalog/ProductScreen'));
const CartScreen = lazyScreen(() => import('../features/cart/CartScreen'));
const LoginScreen = lazyScreen(() => import('../features/account/LoginScreen'));
const RegisterScreen = lazyScreen(() => import('../features/account/RegisterScreen'));
const ForgotPasswordScreen = lazyScreen(() => import('../features/account/ForgotPasswordScreen'));
const ResetPasswordScreen = lazyScreen(() => import('../features/account/ResetPasswordScreen'));
const ProfileScreen = lazyScreen(() => import('../features/account/ProfileScreen'));
const ShippingScreen = lazyScreen(() => import('../features/checkout/ShippingScreen'));
const PlaceOrderScreen = lazyScreen(() => import('../features/checkout/PlaceOrderScreen'));
const OrderScreen = lazyScreen(() => import('../features/orders/OrderScreen'));
const DashboardScreen = lazyScreen(() => import('../features/admin/DashboardScreen'));
const PackingSlipScreen = lazyScreen(() => import('../features/admin/PackingSlipScreen'));
const OrderListScreen = lazyScreen(() => import('../features/admin/OrderListScreen'));
const ProductListScreen = lazyScreen(() => import('../features/admin/ProductListScreen'));
const ProductEditScreen = lazyScreen(() => import('../features/admin/ProductEditScreen'));
const UserListScreen = lazyScreen(() => import('../features/admin/UserListScreen'));
const MailListScreen = lazyScreen(() => import('../features/admin/MailListScreen'));
const PaymentListScreen = lazyScreen(() => import('../features/admin/PaymentListScreen'));
const SettingsScreen = lazyScreen(() => import('../features/admin/SettingsScreen'));
const UserEditScreen = lazyScreen(() => import('../features/admin/UserEditScreen'));
const NotFoundScreen = lazyScreen(() => import('../components/NotFoundScreen'));

export function AppRoutes() {
  return (
    <Routes>
      <Route element={<Layout />}>
        <Route path="/" element={<HomeScreen />} />
        <Route path="/page/:pageNumber" element={<HomeScreen />} />
        <Route path="/search/:keyword" element={<HomeScreen />} />
        <Route path="/search/:keyword/page/:pageNumber" element={<HomeScreen />} />
        <Route path="/category/:category" element={<HomeScreen />} />
        <Route path="/category/:category/page/:pageNumber" element={<HomeScreen />} />
        <Route path="/products/:id" element={<ProductScreen />} />
        <Route path="/cart" element={<CartScreen />} />
        <Route path="/login" element={<LoginScreen />} />
        <Route path="/register" element={<RegisterScreen />} />
        <Route path="/forgot-password" element={<ForgotPasswordScreen />} />
        <Route path="/reset-password/:token" element={<ResetPasswordScreen />} />
        <Route element={<PrivateRoute />}>
          <Route path="/profile" element={<ProfileScreen />} />
          <Route path="/shipping" element={<ShippingScreen />} />
          <Route path="/place-order" element={<PlaceOrderScreen />} />
          <Route path="/order/:id" element={<OrderScreen />} />
        </Route>
        <Route element={<AdminRoute />}>
          <Route path="/admin" element={<DashboardScreen />} />
          <Route path="/admin/order/:id/slip" element={<PackingSlipScreen />} />
          <Route path="/admin/orderlist" element={<OrderListScreen />} />
          <Route path="/admin/productlist" element={<ProductListScreen />} />
          <Route path="/admin/productlist/page/:pageNumber" element={<ProductListScreen />} />
          <Route path="/admin/product/:id/edit" element={<ProductEditScreen />} />
          <Route path="/admin/userlist" element={<UserListScreen />} />
          <Route path="/admin/mail" element={<MailListScreen />} />
          <Route path="/admin/payments" element={<PaymentListScreen />} />
          <Route path="/admin/settings" element={<SettingsScreen />} />
        </Route>
        {/* Outside the admin guard, as the specification places it; the server refuses non-admins. */}
        <Route path="/admin/user/:id" element={<UserEditScreen />} />
        <Route path="*" element={<NotFoundScreen />} />
      </Route>
    </Routes>
  );
}

/** The lazily loaded screen of each address, for loading the first one ahead. */
const SCREENS: [string, Screen][] = [
  ['/products/:id', ProductScreen],
  ['/cart', CartScreen],
  ['/login', LoginScreen],
  ['/register', RegisterScreen],
  ['/forgot-password', ForgotPasswordScreen],
  ['/reset-password/:token', ResetPasswordScreen],
  ['/profile', ProfileScreen],
  ['/shipping', ShippingScreen],
  ['/place-order', PlaceOrderScreen],
  ['/order/:id', OrderScreen],
  ['/admin', DashboardScreen],
  ['/admin/order/:id/slip', PackingSlipScreen],
  ['/admin/orderlist', OrderListScreen],
  ['/admin/productlist', ProductListScreen],
  ['/admin/productlist/page/:pageNumber', ProductListScreen],
  ['/admin/product/:id/edit', ProductEditScreen],
  ['/admin/userlist', UserListScreen],
  ['/admin/mail', MailListScreen],
  ['/admin/payments', PaymentListScreen],
  ['/admin/settings', SettingsScreen],
  ['/admin/user/:id', UserEditScreen],
];

/** The listing's addresses (HomeScreen, in the first bundle): nothing to load ahead for them. */
const LISTING_PATHS = [
  '/',
  '/page/:pageNumber',
  '/search/:keyword',
  '/search/:keyword/page/:pageNumber',
  '/category/:category',
  '/category/:category/page/:pageNumber',
];

/** Loads the screen this address shows, if it is loaded lazily (the not-found screen for an unknown one). */
export function preloadScreen(pathname: string): Promise<void> {
  const screen = SCREENS.find(([path]) => matchPath(path, pathname))?.[1];
  if (screen) return screen.preload();
  return LISTING_PATHS.some((path) => matchPath(path, pathname)) ? Promise.resolve() : NotFoundScreen.preload();
}
