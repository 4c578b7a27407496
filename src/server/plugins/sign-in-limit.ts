import { createHash } from 'node:crypto';
import { AppError } from '../errors.js';
import type { AttemptCounters } from './rate-limit.js';

/**
 * Sign-in limits that do not punish shared addresses. Many Kenyan mobile shoppers reach the shop
 * from one carrier address, so counting every sign-in per address locks out people who did
 * nothing wrong. Instead:
 * - failed attempts are counted per account and address together: `max` of them in a window
 *   lock that account from that address, whatever password comes next;
 * - a success resets its account's count at that address;
 * - failures from one address over all accounts have a ceiling `ADDRESS_CEILING_FACTOR` times
 *   higher, against credential stuffing.
 * Successful sign-ins are never counted.
 */
export const ADDRESS_CEILING_FACTOR = 10;

export class SignInLimit {
  constructor(
    private readonly counters: AttemptCounters,
    private readonly rule: { max: number; windowMs: number },
  ) {}

  private keys(email: string, address: string) {
    // The email is hashed: counter keys in Redis or the database should not list who signs in.
    const account = createHash('sha256').update(email.trim().toLowerCase()).digest('hex').slice(0, 32);
    return { pair: `signin:${account}:${address}`, address: `signin-address:${address}` };
  }

  /**
   * Call before checking the password: counts this attempt against the account at this address
   * (atomically, so parallel guesses cannot slip past) and refuses it with a 429 past a limit.
   */
  async admit(email: string, address: string): Promise<void> {
    const keys = this.keys(email, address);
    const failuresFromAddress = await this.counters.peek(keys.address);
    if (failuresFromAddress >= this.rule.max * ADDRESS_CEILING_FACTOR) throw tooMany(this.rule.windowMs);
    const pair = await this.counters.incr(keys.pair, this.rule.windowMs);
    if (pair.current > this.rule.max) throw tooMany(pair.ttl);
  }

  /** The attempt failed: it also counts towards the address's ceiling. */
  async failed(email: string, address: string): Promise<void> {
    await this.counters.incr(this.keys(email, address).address, this.rule.windowMs);
  }

  /** The attempt succeeded: the account starts afresh at this address. */
  async succeeded(email: string, address: string): Promise<void> {
    await this.counters.reset(this.keys(email, address).pair);
  }
}

function tooMany(ms: number): AppError {
  const minutes = Math.ceil(ms / 60_000);
  const wait =
    ms < 60_000
      ? `${Math.max(1, Math.ceil(ms / 1000))} second${Math.ceil(ms / 1000) === 1 ? '' : 's'}`
      : `${minutes} minute${minutes === 1 ? '' : 's'}`;
  return new AppError(429, `Too many attempts. Please wait ${wait} and try again.`);
}
