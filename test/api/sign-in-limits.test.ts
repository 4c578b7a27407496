import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/server/db/client.js';
import { ACCOUNT_CEILING_FACTOR } from '../../src/server/plugins/shop/sign-in-limit.js';
import { expectClientError } from '../support/fixtures.js';
import { readOutbox, waitForMailAbout } from '../support/outbox.js';
import { buildTestApp, type TestShop } from '../support/shop.js';

/**
 * The sign-in limits as attackers and offices meet them: guesses at one account spread over many
 * addresses, an IPv6 /64 whose every address is one client, and one address signing in many
 * people. Each request comes from the address the test gives it (the socket's peer, as
 * `app.inject` sets it), so no proxy header is involved.
 */

const MAX = 3;
const WINDOW_MS = 15 * 60_000;
const ACCOUNT_CEILING = MAX * ACCOUNT_CEILING_FACTOR;
const PASSWORD = 'limit-pass-1';

let shop: TestShop;
let accounts = 0;

beforeAll(async () => {
  shop = await buildTestApp({ RATE_LIMIT_LOGIN_MAX: String(MAX), RATE_LIMIT_LOGIN_WINDOW_MS: String(WINDOW_MS) });
});
afterAll(() => shop?.stop());

/** A sign-in from `address`, as a browser on the shop's own page sends it. */
async function signIn(address: string, email: string, password: string) {
  const answer = await shop.app.inject({
    method: 'POST',
    url: '/api/users/auth',
    remoteAddress: address,
    headers: { 'sec-fetch-site': 'same-origin' },
    payload: { email, password },
  });
  return { status: answer.statusCode, body: answer.json<unknown>(), retryAfter: answer.headers['retry-after'] };
}

async function newAccount(name = 'Limit Tester'): Promise<string> {
  accounts += 1;
  const email = `limits-${accounts}-${Date.now()}@example.com`;
  expect((await shop.client().post('/api/users', { name, email, password: PASSWORD })).status).toBe(201);
  return email;
}

/** The notices queued to `to` (the request that pauses an account queues its notice before answering). */
async function pauseNotices(to: string): Promise<number> {
  const rows = await queryRows<{ n: number }>(
    shop.database.db,
    sql`SELECT count(*)::int AS n FROM mail_queue WHERE kind = 'sign_in_paused' AND to_address = ${to}`,
  );
  return rows[0]?.n ?? 0;
}

describe('failed sign-ins per account, whatever the address', () => {
  it('pauses the account after the ceiling of wrong passwords from many addresses: 429 with Retry-After, everywhere', async () => {
    const email = await newAccount('Wambui Njeri');
    // One guess from each of many addresses: no address reaches its own limit.
    for (let i = 1; i <= ACCOUNT_CEILING; i++) {
      expect((await signIn(`203.0.113.${i}`, email, `guess-${i}`)).status, `guess ${i}`).toBe(401);
    }
    const refused = await signIn('203.0.113.200', email, 'guess-next');
    expectClientError(refused, 429, 'signing in to it is paused. Please wait 15 minutes and try again, or reset your password.');
    const retryAfter = Number(refused.retryAfter);
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(WINDOW_MS / 1000);
    // Paused for everyone, the right password included, until the window ends.
    const owner = await signIn('198.51.100.77', email, PASSWORD);
    expectClientError(owner, 429, 'paused');
    expect(Number(owner.retryAfter)).toBeGreaterThan(0);
    // Other accounts sign in from the very addresses that guessed.
    const other = await newAccount();
    expect((await signIn('203.0.113.1', other, PASSWORD)).status).toBe(200);
  });

  it('mails the owner once per window: what happened and when, not from where, and what to do', async () => {
    const email = await newAccount('Otieno <b>Ouma</b>');
    for (let i = 1; i <= ACCOUNT_CEILING; i++) expect((await signIn(`192.0.2.${i}`, email, 'wrong')).status).toBe(401);
    for (let i = 0; i < 6; i++) expect((await signIn(`192.0.2.${100 + i}`, email, 'wrong')).status).toBe(429);
    expect((await signIn('192.0.2.150', email, PASSWORD)).status).toBe(429);
    expect(await pauseNotices(email)).toBe(1);

    const mail = await waitForMailAbout(shop.config.dataDir, email, /^Sign-in to your .+ account is paused$/);
    expect(mail).toContain('Hello Otieno <b>Ouma</b>,');
    expect(mail).toMatch(/By \w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2} UTC, someone had tried to sign in to your .+ account/);
    expect(mail).toContain(`with a wrong password ${ACCOUNT_CEILING} times within 15 minutes.`);
    expect(mail).toMatch(/signing in to it is paused for 1[45] minutes/);
    expect(mail).toContain('If it was not you, someone may be trying to guess your password');
    expect(mail).toContain(`${shop.config.publicUrl}/forgot-password`);
    // The HTML part escapes the name; no part names an address the guesses came from.
    expect(mail).toContain('Otieno &lt;b&gt;Ouma&lt;/b&gt;');
    expect(mail).not.toContain('192.0.2.');
    expect((await readOutbox(shop.config.dataDir)).filter((m) => m.includes(`To: ${email}`) && /paused/.test(m))).toHaveLength(1);
  });

  it('pauses an unknown email alike, mailing no one', async () => {
    const email = `nobody-${Date.now()}@example.com`;
    for (let i = 1; i <= ACCOUNT_CEILING; i++) expect((await signIn(`100.64.0.${i}`, email, 'wrong')).status).toBe(401);
    expectClientError(await signIn('100.64.0.200', email, 'wrong'), 429, 'paused');
    expect(await pauseNotices(email)).toBe(0);
  });

  it('never lets one address alone pause an account for its owner elsewhere', async () => {
    const email = await newAccount();
    // All at once: each guess is counted before its password is checked, so none slips past.
    const guesses = await Promise.all(Array.from({ length: ACCOUNT_CEILING * 2 }, () => signIn('198.51.100.9', email, 'wrong')));
    const statuses = guesses.map((guess) => guess.status);
    expect(statuses.filter((status) => status === 401)).toHaveLength(MAX);
    expect(statuses.filter((status) => status === 429)).toHaveLength(ACCOUNT_CEILING * 2 - MAX);
    expect((await signIn('198.51.100.10', email, PASSWORD)).status).toBe(200);
    expect(await pauseNotices(email)).toBe(0);
  });
});

describe('who counts as one client', () => {
  it('counts every address of an IPv6 /64 as one, and IPv4 addresses each on their own', async () => {
    const email = await newAccount();
    for (const address of ['2001:db8:1:2::1', '2001:db8:1:2::2', '2001:db8:1:2:aaaa:bbbb:cccc:dddd']) {
      expect((await signIn(address, email, 'wrong')).status, address).toBe(401);
    }
    const sameSlash64 = await signIn('2001:db8:1:2:ffff:ffff:ffff:ffff', email, 'wrong');
    expectClientError(sameSlash64, 429, 'Too many attempts. Please wait 15 minutes and try again.');
    expect(Number(sameSlash64.retryAfter)).toBeGreaterThan(0);
    // The next /64 is another subscriber.
    expect((await signIn('2001:db8:1:3::1', email, 'wrong')).status).toBe(401);

    const ipv4 = await newAccount();
    for (let i = 0; i < MAX; i++) expect((await signIn('198.51.100.20', ipv4, 'wrong')).status).toBe(401);
    expectClientError(await signIn('198.51.100.20', ipv4, 'wrong'), 429);
    // Its neighbour is not held back; the same address written as IPv4-mapped IPv6 is.
    expect((await signIn('198.51.100.21', ipv4, 'wrong')).status).toBe(401);
    expectClientError(await signIn('::ffff:198.51.100.20', ipv4, 'wrong'), 429);
  });
});

describe('successful sign-ins', () => {
  it('never limits twenty people signing in from one address, at once or one after another, nor counts towards any limit', async () => {
    const office = '41.90.64.10';
    const staff = [];
    for (let i = 0; i < 20; i++) staff.push(await newAccount(`Staff ${i}`));
    const together = await Promise.all(staff.map((email) => signIn(office, email, PASSWORD)));
    expect(together.map((answer) => answer.status)).toEqual(Array(20).fill(200));

    const regular = staff[0]!;
    for (let i = 0; i < 20; i++) expect((await signIn(office, regular, PASSWORD)).status, `sign-in ${i + 1}`).toBe(200);
    // Twenty successes left nothing behind: the account still takes its whole ceiling of wrong
    // passwords from elsewhere before it pauses.
    for (let i = 1; i <= ACCOUNT_CEILING; i++) expect((await signIn(`203.0.114.${i}`, regular, 'wrong')).status).toBe(401);
    expectClientError(await signIn('203.0.114.200', regular, 'wrong'), 429, 'paused');
  });
});
