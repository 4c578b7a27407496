import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/server/db/client.js';
import { FORGOT_PASSWORD_MSG } from '../../src/server/domain/accounts.js';
import type { PublicUser } from '../../src/shared/schemas/users.js';
import type { ApiClient } from '../support/client.js';
import { expectClientError } from '../support/fixtures.js';
import { readOutbox, resetTokenFrom, waitForMail, waitForMailAbout } from '../support/outbox.js';
import { ADMIN_EMAIL, buildTestApp, type TestShop } from '../support/shop.js';

let shop: TestShop;
let admin: ApiClient;

beforeAll(async () => {
  shop = await buildTestApp();
  admin = await shop.admin();
});
afterAll(() => shop?.stop());

let n = 0;
const uniqueEmail = () => `user${++n}-${Date.now()}@example.com`;

function expectNoSecrets(body: unknown) {
  const text = JSON.stringify(body);
  expect(text).not.toMatch(/password/i);
  expect(text).not.toMatch(/\$argon2/);
}

describe('registration and sign-in', () => {
  it('registers with 201, answers the public user and is signed in', async () => {
    const c = shop.client();
    const email = uniqueEmail();
    const res = await c.post<PublicUser>('/api/users', {
      name: 'Wanjiru Njeri',
      email: email.toUpperCase(),
      password: 'correct-horse',
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'Wanjiru Njeri', email, isAdmin: false });
    expectNoSecrets(res.body);
    const cookie = res.headers.getSetCookie().find((l) => l.startsWith('duka_session='))!;
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect((await c.get<PublicUser>('/api/users/profile')).body.email).toBe(email);
  });

  it('refuses a second account with the same email, in any case', async () => {
    const email = uniqueEmail();
    await shop.client().signUp('First', email, 'password-one');
    expectClientError(
      await shop.client().post('/api/users', { name: 'Second', email: email.toUpperCase(), password: 'password-two' }),
      400,
      'already exists',
    );
  });

  it.each([
    [{ email: 'a@example.com', password: 'password1' }, 'Name is required'],
    [{ name: 'A', password: 'password1' }, 'Email is required'],
    [{ name: 'A', email: 'not-an-email', password: 'password1' }, 'valid email'],
    [{ name: 'A', email: 'b@example.com', password: 'short' }, 'at least 8'],
    [{ name: 'A', email: 'b@example.com', password: 'x'.repeat(129) }, 'at most 128'],
    [{ name: 'A', email: 'b@example.com', password: 12345678 }, 'Password'],
  ])('refuses registration %j', async (body, msg) => {
    expectClientError(await shop.client().post('/api/users', body), 400, msg);
  });

  it('signs in with the right password only, and the answer is the same for an unknown email', async () => {
    const email = uniqueEmail();
    await shop.client().signUp('Otieno', email, 'right-password');
    const ok = await shop.client().post<PublicUser>('/api/users/auth', { email, password: 'right-password' });
    expect(ok.status).toBe(200);
    expect(ok.body.email).toBe(email);
    expectNoSecrets(ok.body);
    const wrong = await shop.client().post('/api/users/auth', { email, password: 'wrong-password' });
    const unknown = await shop.client().post('/api/users/auth', { email: uniqueEmail(), password: 'whatever-it-is' });
    expectClientError(wrong, 401, 'Invalid email or password');
    expect(unknown.body).toEqual(wrong.body);
  });

  it('logs out: the session is revoked on the server, not only the cookie dropped', async () => {
    const c = await shop.shopper();
    const sessionCookie = c.cookies.get('duka_session')!;
    const res = await c.post<{ msg: string }>('/api/users/logout');
    expect(res.status).toBe(200);
    expect(res.body.msg).toBe('Logged out successfully');
    expectClientError(await c.get('/api/users/profile'), 401);
    // Replaying the old cookie does not work either.
    const replay = shop.client();
    replay.cookies.set('duka_session', sessionCookie);
    expectClientError(await replay.get('/api/users/profile'), 401);
  });
});

describe('profiles', () => {
  it('lets a user read themselves and admins read anyone, but not others', async () => {
    const a = await shop.shopper();
    const b = await shop.shopper();
    expect((await a.get<PublicUser>(`/api/users/${a.user!._id}`)).body.email).toBe(a.user!.email);
    expectClientError(await b.get(`/api/users/${a.user!._id}`), 403);
    expectClientError(await shop.client().get(`/api/users/${a.user!._id}`), 401);
    const byAdmin = await admin.get<PublicUser>(`/api/users/${a.user!._id}`);
    expect(byAdmin.body).toMatchObject({ _id: a.user!._id, email: a.user!.email });
    expectNoSecrets(byAdmin.body);
    expectClientError(await admin.get('/api/users/00000000-0000-4000-8000-000000000000'), 404);
  });

  it('updates name and email, and leaves the password when it is empty or absent', async () => {
    const email = uniqueEmail();
    const c = shop.client();
    await c.signUp('Old Name', email, 'first-password');
    const newEmail = uniqueEmail();
    const res = await c.put<PublicUser>('/api/users/profile', {
      _id: c.user!._id,
      name: 'New Name',
      email: newEmail,
      password: '',
      currentPassword: 'first-password',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'New Name', email: newEmail });
    await shop.client().signIn(newEmail, 'first-password');
    // A new name alone, or the same email sent back by the form, needs no current password.
    expect((await c.put('/api/users/profile', { name: 'Newer Name' })).status).toBe(200);
    const same = await c.put<PublicUser>('/api/users/profile', { name: 'Newest Name', email: newEmail, password: '' });
    expect(same.status).toBe(200);
    expect(same.body.name).toBe('Newest Name');
    await shop.client().signIn(newEmail, 'first-password');
  });

  it('changes the password and signs out the other sessions, keeping this one', async () => {
    const email = uniqueEmail();
    const here = shop.client();
    await here.signUp('Changer', email, 'first-password');
    const elsewhere = shop.client();
    await elsewhere.signIn(email, 'first-password');
    const res = await here.put('/api/users/profile', { password: 'second-password', currentPassword: 'first-password' });
    expect(res.status).toBe(200);
    expect((await here.get('/api/users/profile')).status).toBe(200);
    expectClientError(await elsewhere.get('/api/users/profile'), 401);
    expectClientError(await shop.client().post('/api/users/auth', { email, password: 'first-password' }), 401);
    await shop.client().signIn(email, 'second-password');
  });

  it('refuses taking another account’s email', async () => {
    const a = await shop.shopper();
    const b = await shop.shopper();
    expectClientError(
      await b.put('/api/users/profile', { email: a.user!.email, currentPassword: 'shopper-pass-1' }),
      400,
      'already exists',
    );
  });
});

describe('taking over an account with only its session', () => {
  it('refuses a new email or password without the current password, or with a wrong one, and changes nothing', async () => {
    const email = uniqueEmail();
    const owner = shop.client();
    await owner.signUp('Owner', email, 'owner-password');
    const holder = shop.client();
    await holder.signIn(email, 'owner-password');
    const attackerEmail = uniqueEmail();
    const attempts = [
      { email: attackerEmail },
      { password: 'taken-over-1' },
      { email: attackerEmail, password: 'taken-over-1' },
      { email: attackerEmail, currentPassword: '' },
    ];
    for (const body of attempts) {
      expectClientError(await holder.put('/api/users/profile', body), 400, 'current password');
    }
    expectClientError(
      await holder.put('/api/users/profile', { email: attackerEmail, password: 'taken-over-1', currentPassword: 'a-guess-123' }),
      400,
      'not correct',
    );
    expectClientError(await holder.put('/api/users/profile', { currentPassword: 7, password: 'taken-over-1' }), 400);
    // Nothing changed and nobody was signed out.
    expect((await owner.get<PublicUser>('/api/users/profile')).body.email).toBe(email);
    expect((await holder.get('/api/users/profile')).status).toBe(200);
    await shop.client().signIn(email, 'owner-password');
    expectClientError(await shop.client().post('/api/users/auth', { email: attackerEmail, password: 'taken-over-1' }), 401);
  });

  it('tells the old address of a new email, and the old address no longer signs in', async () => {
    const email = uniqueEmail();
    const c = shop.client();
    await c.signUp('Mover', email, 'mover-password');
    const newEmail = uniqueEmail();
    const res = await c.put('/api/users/profile', { email: newEmail, currentPassword: 'mover-password' });
    expect(res.status).toBe(200);
    const notice = await waitForMailAbout(shop.config.dataDir, email, /was changed/);
    expect(notice).toMatch(/^Subject: Your Duka account was changed/m);
    expect(notice).toContain('email address was changed');
    expect(notice).toContain(newEmail);
    expect(notice).toContain('If it was not you');
    expect(notice).toMatch(/\d{2} \w{3} \d{4} \d{2}:\d{2} UTC/);
    expectClientError(await shop.client().post('/api/users/auth', { email, password: 'mover-password' }), 401);
    await shop.client().signIn(newEmail, 'mover-password');
    // This session stays signed in.
    expect((await c.get<PublicUser>('/api/users/profile')).body.email).toBe(newEmail);
  });

  it('tells the old address of a new password, keeps this session and signs out the others', async () => {
    const email = uniqueEmail();
    const here = shop.client();
    await here.signUp('Careful', email, 'careful-password');
    const phone = shop.client();
    await phone.signIn(email, 'careful-password');
    const res = await here.put('/api/users/profile', { password: 'careful-password-2', currentPassword: 'careful-password' });
    expect(res.status).toBe(200);
    const notice = await waitForMailAbout(shop.config.dataDir, email, /was changed/);
    expect(notice).toMatch(/^Subject: Your Duka password was changed/m);
    expect(notice).toContain('password was changed');
    expect(notice).toContain('/forgot-password');
    expect((await here.get('/api/users/profile')).status).toBe(200);
    expectClientError(await phone.get('/api/users/profile'), 401);
  });
});

describe('reset links die with a change', () => {
  async function withResetLink(name: string) {
    const email = uniqueEmail();
    const c = shop.client();
    await c.signUp(name, email, 'original-pass');
    await shop.client().post('/api/users/forgot-password', { email });
    const token = resetTokenFrom(await waitForMail(shop.config.dataDir, email));
    return { c, email, token };
  }

  const expectDead = async (token: string) =>
    expectClientError(
      await shop.client().post(`/api/users/reset-password/${token}`, { password: 'hijacked-pass' }),
      400,
      'invalid or has expired',
    );

  it('after the user changes their password', async () => {
    const { c, token } = await withResetLink('Changes Secret');
    expect((await c.put('/api/users/profile', { password: 'changed-pass', currentPassword: 'original-pass' })).status).toBe(200);
    await expectDead(token);
  });

  it('after the user changes their email', async () => {
    const { c, token } = await withResetLink('Changes Email');
    expect((await c.put('/api/users/profile', { email: uniqueEmail(), currentPassword: 'original-pass' })).status).toBe(200);
    await expectDead(token);
  });

  it('after an admin changes the email: the user is signed out and the old address told', async () => {
    const { c, email, token } = await withResetLink('Admin Edits Email');
    const newEmail = uniqueEmail();
    expect((await admin.put(`/api/users/${c.user!._id}`, { email: newEmail })).status).toBe(200);
    await expectDead(token);
    expectClientError(await c.get('/api/users/profile'), 401);
    const notice = await waitForMailAbout(shop.config.dataDir, email, /was changed/);
    expect(notice).toContain('by an administrator');
    expect(notice).toContain(newEmail);
    await shop.client().signIn(newEmail, 'original-pass');
  });

  it('after an admin sets a password', async () => {
    const { c, token } = await withResetLink('Admin Sets Secret');
    expect((await admin.put(`/api/users/${c.user!._id}`, { password: 'admin-chose-it' })).status).toBe(200);
    await expectDead(token);
    expectClientError(await c.get('/api/users/profile'), 401);
  });

  it('but not after an admin edit of the name only', async () => {
    const { c, token } = await withResetLink('Admin Renames');
    const phone = shop.client();
    await phone.signIn(c.user!.email, 'original-pass');
    expect((await admin.put(`/api/users/${c.user!._id}`, { name: 'Renamed', email: c.user!.email })).status).toBe(200);
    expect((await phone.get('/api/users/profile')).status).toBe(200);
    expect((await shop.client().post(`/api/users/reset-password/${token}`, { password: 'still-works-1' })).status).toBe(200);
  });
});

describe('admin user management', () => {
  it('lists every user without password hashes', async () => {
    const res = await admin.get<PublicUser[]>('/api/users');
    expect(res.status).toBe(200);
    expect(res.body.some((u) => u.email === ADMIN_EMAIL && u.isAdmin)).toBe(true);
    expectNoSecrets(res.body);
  });

  it('promotes and demotes a user, from JSON or form data, with immediate effect', async () => {
    const c = await shop.shopper();
    expectClientError(await c.get('/api/users'), 403);
    const form = new FormData();
    form.set('name', 'Promoted Shopper');
    form.set('email', c.user!.email);
    form.set('password', '');
    form.set('isAdmin', 'true');
    const promoted = await admin.request<PublicUser>('PUT', `/api/users/${c.user!._id}`, { body: form });
    expect(promoted.status, JSON.stringify(promoted.body)).toBe(200);
    expect(promoted.body).toMatchObject({ name: 'Promoted Shopper', isAdmin: true });
    // The same session is now an admin's: no need to sign in again.
    expect((await c.get('/api/users')).status).toBe(200);
    expect((await admin.put<PublicUser>(`/api/users/${c.user!._id}`, { isAdmin: false })).body.isAdmin).toBe(false);
    expectClientError(await c.get('/api/users'), 403);
  });

  it('sets a new password for a user and signs them out', async () => {
    const email = uniqueEmail();
    const c = shop.client();
    await c.signUp('Forgetful', email, 'old-password');
    expect((await admin.put(`/api/users/${c.user!._id}`, { password: 'admin-set-pass' })).status).toBe(200);
    expectClientError(await c.get('/api/users/profile'), 401);
    await shop.client().signIn(email, 'admin-set-pass');
  });

  it('never demotes or removes the last admin, and an admin cannot delete themselves', async () => {
    const me = admin.user!;
    expectClientError(await admin.delete(`/api/users/${me._id}`), 400, 'cannot delete your own account');
    expectClientError(await admin.put(`/api/users/${me._id}`, { isAdmin: false }), 400, 'last admin');
    expect((await admin.get<PublicUser>(`/api/users/${me._id}`)).body.isAdmin).toBe(true);
  });

  it('lets two admins demote each other at once without leaving the shop without an admin', async () => {
    const other = await shop.shopper('Second Admin');
    await admin.put(`/api/users/${other.user!._id}`, { isAdmin: true });
    const [a, b] = await Promise.all([
      admin.put(`/api/users/${other.user!._id}`, { isAdmin: false }),
      other.put(`/api/users/${admin.user!._id}`, { isAdmin: false }),
    ]);
    const statuses = [a.status, b.status].sort();
    // Either one demotion wins and the other is refused, or (serialised the other way) the
    // second is refused because its caller is no longer an admin; never two successes.
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    const admins = (await shop.database.db.execute(sql`SELECT count(*)::int AS n FROM users WHERE is_admin`)) as unknown as {
      rows: { n: number }[];
    };
    expect(admins.rows[0]!.n).toBeGreaterThanOrEqual(1);
    // Restore: whoever is still an admin re-promotes the seeded admin.
    const stillAdmin = a.status === 200 ? admin : other;
    await stillAdmin.put(`/api/users/${admin.user!._id}`, { isAdmin: true });
  });

  it('deletes a user: their sessions end, their reviews and orders stay', async () => {
    const c = await shop.shopper();
    const res = await admin.delete<{ msg: string }>(`/api/users/${c.user!._id}`);
    expect(res.status).toBe(200);
    expect(res.body.msg).toBe('User deleted');
    expectClientError(await c.get('/api/users/profile'), 401);
    expectClientError(await admin.delete(`/api/users/${c.user!._id}`), 404);
  });

  it('refuses bad admin updates', async () => {
    const c = await shop.shopper();
    expectClientError(await admin.put(`/api/users/${c.user!._id}`, { isAdmin: 'maybe' }), 400, 'Is Admin');
    expectClientError(await admin.put(`/api/users/${c.user!._id}`, { email: 'nope' }), 400, 'valid email');
    expectClientError(await admin.put('/api/users/00000000-0000-4000-8000-000000000000', { name: 'X' }), 404);
  });
});

describe('forgot and reset password', () => {
  it('answers the same msg for known and unknown emails, and mails only the known one', async () => {
    const c = await shop.shopper('Reset Me');
    const known = await shop.client().post<{ msg: string }>('/api/users/forgot-password', { email: c.user!.email });
    const unknown = await shop.client().post<{ msg: string }>('/api/users/forgot-password', { email: 'nobody-here@example.com' });
    expect(known.status).toBe(200);
    expect(unknown.status).toBe(200);
    expect(known.body).toEqual({ msg: FORGOT_PASSWORD_MSG });
    expect(unknown.body).toEqual(known.body);
    const mail = await waitForMail(shop.config.dataDir, c.user!.email);
    expect(mail).toContain(`${shop.config.publicUrl}/reset-password/`);
    // Mail is queued in the request's own transaction: whatever the answer left unqueued is never sent.
    const resets = await queryRows<{ to_address: string }>(
      shop.database.db,
      sql`SELECT to_address FROM mail_queue WHERE kind = 'password_reset' AND to_address IN (${c.user!.email}, 'nobody-here@example.com')`,
    );
    expect(resets).toEqual([{ to_address: c.user!.email }]);
    expect((await readOutbox(shop.config.dataDir)).some((m) => m.includes('nobody-here@example.com'))).toBe(false);
  });

  it('resets the password once with the mailed token and signs out every session', async () => {
    const email = uniqueEmail();
    const c = shop.client();
    await c.signUp('Reset Flow', email, 'forgotten-pass');
    await shop.client().post('/api/users/forgot-password', { email });
    const token = resetTokenFrom(await waitForMail(shop.config.dataDir, email));

    expectClientError(await shop.client().post(`/api/users/reset-password/${token}`, { password: 'short' }), 400, 'at least 8');
    const reset = await shop.client().post<{ msg: string }>(`/api/users/reset-password/${token}`, { password: 'brand-new-pass' });
    expect(reset.status).toBe(200);
    expect(reset.body.msg).toMatch(/reset/i);
    expectClientError(await c.get('/api/users/profile'), 401);
    expectClientError(await shop.client().post('/api/users/auth', { email, password: 'forgotten-pass' }), 401);
    await shop.client().signIn(email, 'brand-new-pass');
    expectClientError(
      await shop.client().post(`/api/users/reset-password/${token}`, { password: 'another-pass-1' }),
      400,
      'invalid or has expired',
    );
  });

  it('refuses an expired token and a made-up one', async () => {
    const email = uniqueEmail();
    await shop.client().signUp('Slow Reader', email, 'forgotten-pass');
    await shop.client().post('/api/users/forgot-password', { email });
    const token = resetTokenFrom(await waitForMail(shop.config.dataDir, email));
    await shop.database.db.execute(sql`UPDATE password_reset_tokens SET expires_at = now() - interval '1 minute'`);
    expectClientError(
      await shop.client().post(`/api/users/reset-password/${token}`, { password: 'new-password-1' }),
      400,
      'expired',
    );
    expectClientError(
      await shop.client().post(`/api/users/reset-password/${'A'.repeat(43)}`, { password: 'new-password-1' }),
      400,
      'invalid or has expired',
    );
    expectClientError(await shop.client().post('/api/users/reset-password/short', { password: 'new-password-1' }), 400);
  });
});
