import { z } from 'zod';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../constants.js';
import { formBoolean, listKeyword, optionalPageNumber, requiredText } from './common.js';

/** The public user object: what the API returns and what the browser keeps under `user`. */
export const publicUser = z.object({
  _id: z.string(),
  name: z.string(),
  email: z.string(),
  isAdmin: z.boolean(),
  createdAt: z.string().optional(),
});
export type PublicUser = z.infer<typeof publicUser>;

export const email = z
  .string({ error: 'Email is required' })
  .trim()
  .toLowerCase()
  .max(254, { error: 'Email is too long' })
  .pipe(z.email({ error: 'Enter a valid email address' }));

export const newPassword = z
  .string({ error: 'Password is required' })
  .min(PASSWORD_MIN_LENGTH, { error: `Password must be at least ${PASSWORD_MIN_LENGTH} characters` })
  .max(PASSWORD_MAX_LENGTH, { error: `Password must be at most ${PASSWORD_MAX_LENGTH} characters` });

/** An optional new password: empty or absent means "leave it unchanged" (docs/product-rules.md, Validation: User edit). */
export const optionalNewPassword = z.preprocess((v) => (v === '' || v === null ? undefined : v), newPassword.optional());

export const userName = requiredText('Name', 100);

export const registerBody = z.object({ name: userName, email, password: newPassword });
export type RegisterBody = z.infer<typeof registerBody>;

export const loginBody = z.object({
  email,
  password: z.string({ error: 'Password is required' }).min(1, { error: 'Password is required' }).max(1024),
});
export type LoginBody = z.infer<typeof loginBody>;

export const profileUpdateBody = z.object({
  _id: z.string().optional(),
  name: userName.optional(),
  email: email.optional(),
  password: optionalNewPassword,
  /** Required, and checked, when the email or the password changes. */
  currentPassword: z.preprocess(
    (v) => (v === '' || v === null ? undefined : v),
    z.string({ error: 'Current password must be text' }).max(1024, { error: 'Current password is too long' }).optional(),
  ),
});
export type ProfileUpdateBody = z.infer<typeof profileUpdateBody>;

export const adminUserUpdateBody = z.object({
  name: userName.optional(),
  email: email.optional(),
  password: optionalNewPassword,
  isAdmin: formBoolean('Is Admin').optional(),
});
export type AdminUserUpdateBody = z.infer<typeof adminUserUpdateBody>;

export const forgotPasswordBody = z.object({ email });
export type ForgotPasswordBody = z.infer<typeof forgotPasswordBody>;

export const resetPasswordBody = z.object({ password: newPassword });

/**
 * The forms that choose a password ask for it twice (docs/product-rules.md, Validation): a
 * confirmation that differs is refused under the confirmation, and nothing is sent.
 */
function confirmed<Shape extends { password: z.ZodType; confirmPassword: z.ZodType }>(shape: Shape) {
  return z.object(shape).refine(
    (form) => {
      // An optional password left empty is undefined by now; its confirmation is still text.
      const { password, confirmPassword } = form as { password?: unknown; confirmPassword?: unknown };
      return (password ?? '') === confirmPassword;
    },
    { error: 'Passwords do not match', path: ['confirmPassword'] },
  );
}

const confirmation = z.string();

export const registerForm = confirmed({ ...registerBody.shape, confirmPassword: confirmation });
export const resetPasswordForm = confirmed({ password: newPassword, confirmPassword: confirmation });

/** The profile: an empty password keeps the current one; the current password is needed to change email or password. */
export const profileForm = confirmed({
  name: userName,
  email,
  password: optionalNewPassword,
  confirmPassword: confirmation,
  currentPassword: z.string().max(1024, { error: 'Current password is too long' }),
});
export const resetTokenParams = z.object({
  token: z.string().regex(/^[A-Za-z0-9_-]{20,100}$/, { error: 'This reset link is invalid or has expired' }),
});

/**
 * The admin user list's parameters. With none the list answers every user as a plain array (the
 * specification's answer); with any it answers one page, `{users, page, pages}`.
 */
export const userListQuery = z.strictObject(
  {
    pageNumber: optionalPageNumber,
    /** Part of the name (any case) or of the email. */
    keyword: listKeyword,
    isAdmin: z.preprocess(
      (v) => (v === 'true' ? true : v === 'false' ? false : v),
      z.boolean({ error: 'isAdmin must be true or false' }).optional(),
    ),
  },
  { error: (issue) => (issue.code === 'unrecognized_keys' ? `Unknown parameter: ${issue.keys.join(', ')}` : undefined) },
);
export type UserListQuery = z.infer<typeof userListQuery>;

export const userPage = z.object({ users: z.array(publicUser), page: z.number(), pages: z.number() });
export type UserPage = z.infer<typeof userPage>;
