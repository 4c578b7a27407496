import { createHash } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { FastifyReply } from 'fastify';
import type { Db } from '../../db/client.js';
import { users } from '../../db/schema.js';
import { AppError } from '../../errors.js';
import type { Notifications } from '../../mail/notifications.js';
import type { SignInPause } from '../../mail/templates.js';
import { type AttemptCounters, clientKey } from './attempt-counters.js';

/**
 * Sign-in limits that stop guessing without punishing shared addresses. Many Kenyan mobile
 * shoppers reach the shop from one carrier address, and an office signs its staff in through one
 * NAT, so counting every sign-in per address locks out people who did nothing wrong. Instead,
 * with `max` and the window from RATE_LIMIT_LOGIN_*:
 * - attempts are counted per account and client together: `max` of them in a window lock that
 *   account from that client, whatever password comes next; a success starts it afresh there;
 * - attempts on an account from every client together have a ceiling `ACCOUNT_CEILING_FACTOR`
 *   times higher, against guessing spread over many addresses. Higher than `max`, so that one
 *   client alone (a forgetful family member, or a prankster) cannot pause the owner's sign-in
 *   everywhere. The first time it is reached in a window, the owner is mailed;
 * - failures from one client over all accounts have a ceiling `ADDRESS_CEILING_FACTOR` times
 *   higher, against credential stuffing.
 * A client is an IPv4 address, or an IPv6 /64 (clientKey). An attempt is counted before its
 * password is checked, so parallel guesses cannot slip past a limit; a success takes its own
 * count back, so successful sign-ins never count towards any limit.
 */
export const ADDRESS_CEILING_FACTOR = 10;
export const ACCOUNT_CEILING_FACTOR = 3;

/** A sign-in refused by a limit: a 429 that knows when to come back (the Retry-After header). */
export class TooManySignIns extends AppError {
  readonly retryAfterSeconds: number;
  constructor(message: string, retryAfterMs: number) {
    super(429, message);
    this.retryAfterSeconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  }
}

type AccountPaused = (email: string, pause: SignInPause) => Promise<void>;

export class SignInLimit {
  constructor(
    private readonly counters: AttemptCounters,
    private readonly rule: { max: number; windowMs: number },
    /** Told once per window when the account's ceiling is reached; a failure here must not fail the sign-in. */
    private readonly onAccountPaused: AccountPaused,
  ) {}

  private keys(email: string, address: string) {
    // The email is hashed: counter keys in Redis or the database should not list who signs in.
    const account = createHash('sha256').update(email.trim().toLowerCase()).digest('hex').slice(0, 32);
    const client = clientKey(address);
    return {
      pair: `signin:${account}:${client}`,
      account: `signin-account:${account}`,
      paused: `signin-paused:${account}`,
      client: `signin-address:${client}`,
    };
  }

  /**
   * Call before checking the password: counts this attempt against the account, at this client
   * and everywhere (atomically, so parallel guesses cannot slip past), and refuses it with a 429
   * past a limit.
   */
  async admit(email: string, address: string): Promise<void> {
    const keys = this.keys(email, address);
    const failuresFromClient = await this.counters.peek(keys.client);
    if (failuresFromClient >= this.rule.max * ADDRESS_CEILING_FACTOR) throw tooMany(this.rule.windowMs);
    // The client's own count first: attempts it is refused do not reach the account's ceiling,
    // so one client cannot pause the account for everyone else.
    const pair = await this.counters.incr(keys.pair, this.rule.windowMs);
    if (pair.current > this.rule.max) throw tooMany(pair.ttl);
    const ceiling = this.rule.max * ACCOUNT_CEILING_FACTOR;
    const account = await this.counters.incr(keys.account, this.rule.windowMs);
    if (account.current <= ceiling) return;
    // Counted apart, so the owner hears once per window however attempts and successes interleave.
    const notice = await this.counters.incr(keys.paused, Math.max(1, account.ttl));
    if (notice.current === 1) {
      await this.onAccountPaused(email, {
        at: new Date(),
        failures: ceiling,
        windowMs: this.rule.windowMs,
        pausedForMs: account.ttl,
      });
    }
    throw accountPaused(account.ttl);
  }

  /** The attempt failed: it also counts towards the client's ceiling. */
  async failed(email: string, address: string): Promise<void> {
    await this.counters.incr(this.keys(email, address).client, this.rule.windowMs);
  }

  /** The attempt succeeded: the account starts afresh at this client, and this attempt counts nowhere. */
  async succeeded(email: string, address: string): Promise<void> {
    const keys = this.keys(email, address);
    await this.counters.reset(keys.pair);
    await this.counters.decr(keys.account);
  }
}

/** For a `.catch` around admit: a refusal answers with Retry-After, which the error handler does not add. */
export function withRetryAfter(reply: FastifyReply) {
  return (error: unknown): never => {
    if (error instanceof TooManySignIns) reply.header('retry-after', String(error.retryAfterSeconds));
    throw error;
  };
}

/**
 * Queues the notice to the owner of a paused account, when the email has one (unknown emails are
 * counted and paused alike, so that a limit says nothing about who has an account).
 */
export async function mailOwnerOfPausedAccount(db: Db, notify: Notifications, email: string, pause: SignInPause) {
  const [owner] = await db
    .select({ email: users.email, name: users.name })
    .from(users)
    .where(eq(users.email, email.trim().toLowerCase()));
  if (owner) await notify.signInPaused(db, owner.email, owner.name, pause);
}

function waitText(ms: number): string {
  const minutes = Math.ceil(ms / 60_000);
  const seconds = Math.max(1, Math.ceil(ms / 1000));
  return ms < 60_000 ? `${seconds} second${seconds === 1 ? '' : 's'}` : `${minutes} minute${minutes === 1 ? '' : 's'}`;
}

function tooMany(ms: number): TooManySignIns {
  return new TooManySignIns(`Too many attempts. Please wait ${waitText(ms)} and try again.`, ms);
}

function accountPaused(ms: number): TooManySignIns {
  return new TooManySignIns(
    `Too many wrong passwords were tried on this account, so signing in to it is paused. Please wait ${waitText(ms)} and try again, or reset your password.`,
    ms,
  );
}
