import { configureStore } from '@reduxjs/toolkit';
import { type TypedUseSelectorHook, useDispatch, useSelector } from 'react-redux';
import { api } from '../lib/api';
import { authReducer } from './auth-slice';
import { cartReducer } from './cart-slice';
import { followedPaymentReducer } from './followed-payment-slice';
import { persistenceMiddleware } from './persistence';

/** The app's state: the signed-in user, the cart, the payment the banner follows, and the API cache. */
export function makeStore() {
  return configureStore({
    reducer: {
      [api.reducerPath]: api.reducer,
      auth: authReducer,
      cart: cartReducer,
      followedPayment: followedPaymentReducer,
    },
    // Storage is written after the reducers, by the listener (stores/persistence.ts).
    middleware: (getDefault) => getDefault().prepend(persistenceMiddleware()).concat(api.middleware),
  });
}

export type AppStore = ReturnType<typeof makeStore>;
export type RootState = ReturnType<AppStore['getState']>;
export type AppDispatch = AppStore['dispatch'];

export const useAppDispatch: () => AppDispatch = useDispatch;
export const useAppSelector: TypedUseSelectorHook<RootState> = useSelector;
