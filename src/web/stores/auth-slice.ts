import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import type { PublicUser } from '../../shared/schemas/users';
import { readStored } from '../lib/storage';

export interface AuthState {
  /** The signed-in user's public object, or null for a guest. */
  user: PublicUser | null;
}

function isPublicUser(value: unknown): value is PublicUser {
  const v = value as Partial<PublicUser> | null;
  return (
    typeof v?._id === 'string' && typeof v.name === 'string' && typeof v.email === 'string' && typeof v.isAdmin === 'boolean'
  );
}

/** Only the public fields are kept in the browser, never a token (the session is an httpOnly cookie). */
function publicFields(user: PublicUser): PublicUser {
  return { _id: user._id, name: user.name, email: user.email, isAdmin: user.isAdmin };
}

const initialState: AuthState = { user: readStored('user', isPublicUser) ?? null };

const authSlice = createSlice({
  name: 'auth',
  initialState,
  reducers: {
    /** A successful sign-in, sign-up or profile update (docs/product-rules.md, States: Session). */
    setCredentials(state, action: PayloadAction<PublicUser>) {
      state.user = publicFields(action.payload);
    },
    /** Sign-out, a failed sign-in, or a 401 from any call. */
    signedOut(state) {
      state.user = null;
    },
  },
});

export const { setCredentials, signedOut } = authSlice.actions;
export const authReducer = authSlice.reducer;
