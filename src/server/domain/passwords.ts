import { hash, verify } from '@node-rs/argon2';

/**
 * Argon2id's recommended cost (19 MiB, 2 passes), @node-rs/argon2's defaults: slow enough to make
 * guessing expensive, quick enough for a sign-in to feel instant. Production refuses less.
 */
export const DEFAULT_PASSWORD_COST = { memoryKib: 19_456, timeCost: 2 } as const;

export interface PasswordCost {
  /** Argon2 memory in KiB. */
  memoryKib: number;
  /** Argon2 passes over that memory. */
  timeCost: number;
}

/** Hashes new passwords at one cost; verifies any stored hash (its cost is written in it). */
export interface Passwords {
  hash(password: string): Promise<string>;
  verify(passwordHash: string | undefined, password: string): Promise<boolean>;
}

export function createPasswords(cost: PasswordCost = DEFAULT_PASSWORD_COST): Passwords {
  const options = { memoryCost: cost.memoryKib, timeCost: cost.timeCost };
  const hashPassword = (password: string) => hash(password, options);
  // Verifying against this when the email is unknown keeps sign-in equally slow either way,
  // so timing does not reveal which emails have accounts. Made on first use, not at import.
  let unknownUserHash: Promise<string> | undefined;
  return {
    hash: hashPassword,
    async verify(passwordHash, password) {
      try {
        unknownUserHash ??= hashPassword('not-a-real-password-only-for-equal-timing');
        return await verify(passwordHash ?? (await unknownUserHash), password);
      } catch {
        return false;
      }
    },
  };
}

const defaultPasswords = createPasswords();

/** A hash at the default cost, for tools that write users directly. */
export function hashPassword(password: string): Promise<string> {
  return defaultPasswords.hash(password);
}
