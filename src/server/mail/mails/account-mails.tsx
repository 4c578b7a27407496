import { SHOP_NAME } from '../../../shared/constants.js';
import { Button, Heading, Link, Para } from '../components/blocks.js';
import { Layout, renderMail } from '../components/layout.js';
import type { MailMessage } from '../mailer.js';
import { baseUrl, textFooter } from './facts.js';

/** The mails about a shopper's account: a password reset, a change to it, a pause of its sign-in. */

export function passwordResetMail(to: string, name: string, link: string, shopName: string = SHOP_NAME): MailMessage {
  const subject = `Reset your ${shopName} password`;
  // The link is {shopUrl}/reset-password/{token}; its start names the shop in the footer.
  const at = link.indexOf('/reset-password/');
  const shopUrl = at > 0 ? link.slice(0, at) : undefined;
  const asked = `Someone asked to reset the password of your ${shopName} account. To choose a new password, open this link within 1 hour:`;
  const notYou = 'If it was not you, ignore this message: your password stays as it is.';
  return {
    to,
    subject,
    text: [`Hello ${name},`, '', asked, '', link, '', notYou, '', textFooter(shopUrl, shopName)].join('\n'),
    html: renderMail(
      <Layout
        shopName={shopName}
        title={subject}
        preheader="Choose a new password within 1 hour."
        shopUrl={shopUrl}
        reason={`You get this e-mail because a password reset was asked for your ${shopName} account.`}
      >
        <Heading>Reset your password</Heading>
        <Para style={{ marginTop: '14px' }}>Hello {name},</Para>
        <Para>{asked}</Para>
        <Button href={link} label="Reset my password" />
        <Para style={{ margin: '14px 0 0' }}>{notYou}</Para>
      </Layout>,
    ),
  };
}

/** What changed on an account, for the notice sent to its old address. */
export interface AccountChange {
  password: boolean;
  /** The new address, when the email changed. */
  newEmail?: string | undefined;
  /** When the change was made. */
  at: Date;
  /** Made by an admin of the shop rather than the account's owner. */
  byAdmin: boolean;
}

/** "Tue, 24 Nov 2026 09:41 UTC": the time of a change, the same in every mail client. */
function changeTime(at: Date): string {
  return `${at.toUTCString().slice(0, 22)} UTC`;
}

/**
 * Sent to the address an account had before its password or email changed: what changed, when,
 * and what to do if it was not its owner. It goes to the old address so that whoever took the
 * account over cannot hide it.
 */
export function accountChangedMail(
  to: string,
  name: string,
  change: AccountChange,
  shopUrl: string,
  shopName: string = SHOP_NAME,
): MailMessage {
  const what =
    change.password && change.newEmail
      ? 'password and email address were'
      : change.password
        ? 'password was'
        : 'email address was';
  const subject = `Your ${shopName} ${change.password && !change.newEmail ? 'password' : 'account'} was changed`;
  const who = change.byAdmin ? `by an administrator of ${shopName}` : 'from your account';
  const facts = [
    `The ${what} changed on ${changeTime(change.at)} ${who}.`,
    ...(change.newEmail ? [`The account's email address is now ${change.newEmail}; this address no longer signs in.`] : []),
  ];
  const reset = `${baseUrl(shopUrl)}/forgot-password`;
  const notYou = `If it was not you, someone else may have your account: reply to this e-mail or contact ${shopName} at once`;
  const advice = notYou + (change.newEmail ? ' so that we can give it back to you.' : `, and choose a new password at ${reset}.`);
  const itWasYou = 'If it was you, there is nothing to do.';
  return {
    to,
    subject,
    text: [`Hello ${name},`, '', ...facts, '', advice, '', itWasYou, '', textFooter(shopUrl, shopName)].join('\n'),
    html: renderMail(
      <Layout
        shopName={shopName}
        title={subject}
        preheader={facts[0] ?? subject}
        shopUrl={shopUrl}
        reason={`You get this e-mail because the ${what} changed on your ${shopName} account.`}
      >
        <Heading>{subject}</Heading>
        <Para style={{ marginTop: '14px' }}>Hello {name},</Para>
        {facts.map((fact) => (
          <Para key={fact}>{fact}</Para>
        ))}
        <Para>
          {change.newEmail ? (
            advice
          ) : (
            <>
              {notYou}, and <Link href={reset}>choose a new password</Link>.
            </>
          )}
        </Para>
        <Para style={{ margin: '14px 0 0' }}>{itWasYou}</Para>
      </Layout>,
    ),
  };
}

/** Why sign-in to an account was paused, for the notice to its owner. */
export interface SignInPause {
  /** When the limit was reached. */
  at: Date;
  /** Wrong passwords that reached it, and the window they came within. */
  failures: number;
  windowMs: number;
  /** How long sign-in stays paused from `at`. */
  pausedForMs: number;
}

/** "15 minutes", "1 minute": never less than a minute, the precision a person waits by. */
function minutesText(ms: number): string {
  const minutes = Math.max(1, Math.ceil(ms / 60_000));
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
}

/**
 * Sent to an account's owner the first time, in a window, that wrong passwords from anywhere
 * reach the account's limit and pause its sign-in. It says when, not from where: the address
 * would tell the owner nothing they can act on, and the guesser may share it with others.
 */
export function signInPausedMail(
  to: string,
  name: string,
  pause: SignInPause,
  shopUrl: string,
  shopName: string = SHOP_NAME,
): MailMessage {
  const subject = `Sign-in to your ${shopName} account is paused`;
  const paused = minutesText(pause.pausedForMs);
  const reset = `${baseUrl(shopUrl)}/forgot-password`;
  const what =
    `By ${changeTime(pause.at)}, someone had tried to sign in to your ${shopName} account with a wrong password ` +
    `${pause.failures} times within ${minutesText(pause.windowMs)}.`;
  const pausedLine = `To protect your account, signing in to it is paused for ${paused}. Nothing else has changed.`;
  const ifYou = `If it was you, wait ${paused} and sign in again. If you have forgotten your password, choose a new one at ${reset}.`;
  const ifNotYou = `If it was not you, someone may be trying to guess your password: we suggest you choose a new one at ${reset}, one you use for no other site.`;
  return {
    to,
    subject,
    text: [`Hello ${name},`, '', what, '', pausedLine, '', ifNotYou, '', ifYou, '', textFooter(shopUrl, shopName)].join('\n'),
    html: renderMail(
      <Layout
        shopName={shopName}
        title={subject}
        preheader={`Wrong passwords were tried ${pause.failures} times; sign-in is paused for ${paused}.`}
        shopUrl={shopUrl}
        reason={`You get this e-mail because many wrong passwords were tried on your ${shopName} account.`}
      >
        <Heading>{subject}</Heading>
        <Para style={{ marginTop: '14px' }}>Hello {name},</Para>
        <Para>{what}</Para>
        <Para>{pausedLine}</Para>
        <Para>
          If it was not you, someone may be trying to guess your password: we suggest you choose a new one, one you use for no
          other site.
        </Para>
        <Button href={reset} label="Choose a new password" />
        <Para style={{ margin: '14px 0 0' }}>
          If it was you, wait {paused} and sign in again. If you have forgotten your password,{' '}
          <Link href={reset}>choose a new one</Link>.
        </Para>
      </Layout>,
    ),
  };
}
