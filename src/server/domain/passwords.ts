import { hash, verify } from '@node-rs/argon2';

/**
 * Argon2id with its recommended defaults (19 MiB, 2 passes): slow enough to make guessing
 * expensive, quick enough for a sign-in to feel instant.
 */
export function hashPassword(password: string): Promise<string> {
  return hash(password);
}

// Verifying against this when the email is unknown keeps sign-in equally slow either way,
// so timing does not reveal which emails have accounts.
const unknownUserHash = hash('not-a-real-password-only-for-equal-timing');

export async function verifyPassword(passwordHash: string | undefined, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash ?? (await unknownUserHash), password);
  } catch {
    return false;
  }
}
