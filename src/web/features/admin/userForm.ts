// First, before any schema parses: no eval under the shop's CSP (see zod-jitless.ts).
import '../../zod-jitless';
import { adminUserUpdateBody } from '../../../shared/schemas/users';
import type { UserUpdate } from './api';

/** The user edit form as typed. */
export interface UserFields {
  name: string;
  email: string;
  password: string;
  isAdmin: boolean;
}

export type UserFieldErrors = Partial<Record<'name' | 'email' | 'password', string>>;

export type UserCheck = { ok: true; user: Omit<UserUpdate, 'id'> } | { ok: false; errors: UserFieldErrors };

function isTextField(key: PropertyKey | undefined): key is keyof UserFieldErrors {
  return key === 'name' || key === 'email' || key === 'password';
}

/**
 * Checks the form with the server's own schema (same rules, same messages) before sending.
 * An empty password means "keep the current one" (docs/product-rules.md, Validation) and passes.
 */
export function checkUser(fields: UserFields): UserCheck {
  const parsed = adminUserUpdateBody.safeParse(fields);
  if (!parsed.success) {
    const errors: UserFieldErrors = {};
    for (const issue of parsed.error.issues) {
      const field = issue.path[0];
      if (isTextField(field) && !errors[field]) errors[field] = issue.message;
    }
    return { ok: false, errors };
  }
  return {
    ok: true,
    user: {
      name: parsed.data.name ?? fields.name,
      email: parsed.data.email ?? fields.email,
      password: parsed.data.password ?? '',
      isAdmin: fields.isAdmin,
    },
  };
}
