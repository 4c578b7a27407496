import { createListenerMiddleware, isAnyOf } from '@reduxjs/toolkit';
import { shopSettingsApi } from '../lib/shop-settings';
import { removeStored, writeStored } from '../lib/storage';
import { type AuthState, setCredentials, signedOut } from './auth-slice';
import {
  addToCart,
  type CartState,
  clearCartItems,
  refreshCartLine,
  removeFromCart,
  resetCart,
  saveShippingAddress,
} from './cart-slice';
import { type FollowedPayment, followPayment, stopFollowingPayment } from './followed-payment-slice';

/** The parts of the app's state kept in the browser's storage (docs/product-rules.md, Data). */
interface StoredState {
  auth: AuthState;
  cart: CartState;
  followedPayment: { payment: FollowedPayment | null };
}

/**
 * Saves the signed-in user, the cart and the followed payment to localStorage after the actions
 * that change them, so the reducers stay pure: a reducer only computes the next state, and this
 * middleware (added to the store in stores/store.ts) is the one place that writes to storage.
 */
export function persistenceMiddleware() {
  const listener = createListenerMiddleware();
  const startListening = listener.startListening.withTypes<StoredState>();

  startListening({
    actionCreator: setCredentials,
    effect: (_, api) => writeStored('user', api.getState().auth.user),
  });
  startListening({
    actionCreator: signedOut,
    effect: () => {
      removeStored('user');
      // Another shopper may sign in on this browser next: their banner starts empty.
      removeStored('followedPayment');
    },
  });

  startListening({
    matcher: isAnyOf(addToCart, removeFromCart, refreshCartLine, saveShippingAddress),
    effect: (_, api) => writeStored('cart', api.getState().cart),
  });
  startListening({
    matcher: isAnyOf(clearCartItems, resetCart),
    effect: () => removeStored('cart'),
  });
  // New prices change a saved cart's totals; an empty cart is not worth a saved copy.
  startListening({
    matcher: shopSettingsApi.endpoints.getSettings.matchFulfilled,
    effect: (_, api) => {
      const { cart } = api.getState();
      if (cart.cartItems.length > 0) writeStored('cart', cart);
    },
  });

  startListening({
    actionCreator: followPayment,
    effect: (action) => writeStored('followedPayment', action.payload),
  });
  startListening({
    actionCreator: stopFollowingPayment,
    effect: () => removeStored('followedPayment'),
  });

  return listener.middleware;
}
