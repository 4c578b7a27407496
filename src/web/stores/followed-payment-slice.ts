import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import { readStored } from '../lib/storage';
import { signedOut } from './auth-slice';

/** The order whose payment the banner follows after Pay with M-Pesa sends the shopper home. */
export interface FollowedPayment {
  orderId: string;
  orderNumber: string;
}

function isFollowedPayment(value: unknown): value is FollowedPayment {
  const v = value as Partial<FollowedPayment> | null;
  return typeof v?.orderId === 'string' && typeof v.orderNumber === 'string';
}

const followedPaymentSlice = createSlice({
  name: 'followedPayment',
  initialState: { payment: readStored('followedPayment', isFollowedPayment) ?? null } as { payment: FollowedPayment | null },
  reducers: {
    /** A prompt was sent: follow that order's payment on every page, across reloads. */
    followPayment(state, action: PayloadAction<FollowedPayment>) {
      state.payment = action.payload;
    },
    /** The shopper dismissed the banner. */
    stopFollowingPayment(state) {
      state.payment = null;
    },
  },
  // Another shopper may sign in on this browser next: their banner starts empty.
  extraReducers: (builder) => {
    builder.addCase(signedOut, (state) => {
      state.payment = null;
    });
  },
});

export const { followPayment, stopFollowingPayment } = followedPaymentSlice.actions;
export const followedPaymentReducer = followedPaymentSlice.reducer;
