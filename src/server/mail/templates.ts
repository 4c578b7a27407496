import { SHOP_NAME } from '../../shared/constants.js';
import { nairobiDay } from '../../shared/dates.js';
import { formatKsh, fromCents, toCents } from '../../shared/money.js';
import { EXCEPTION_REASON } from '../../shared/payment-exceptions.js';
import type { Order } from '../../shared/schemas/orders.js';
import type { PaymentException } from '../../shared/schemas/payments.js';
import type { LipaNaMpesa } from '../payments/lipa-na-mpesa.js';
import type { MailMessage } from './mailer.js';

/**
 * The shop's transactional mails, each as plain text and as HTML.
 *
 * The HTML is written for mail clients rather than browsers: one column at most 600 px wide, laid
 * out with presentation tables, inline styles only (clients drop <style> blocks and external CSS),
 * system fonts and no images. Every value that comes from a person or the database goes through
 * escapeHtml, URLs in href attributes included.
 */

/** Escapes text for HTML so names and addresses can never become markup in a mail. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
}

// ---------------------------------------------------------------------------------------------
// Look

const BRAND = '#0f5132';
const ACCENT = '#198754';
const TEXT = '#212529';
const MUTED = '#6c757d';
const BORDER = '#dee2e6';
const PAGE = '#f3f4f6';
const PANEL = '#f8f9fa';
const FONT = "-apple-system,BlinkMacSystemFont,'Segoe UI',Roboto,'Helvetica Neue',Arial,sans-serif";

/** A table that only lays things out: screen readers skip its structure. */
const LAYOUT_TABLE = 'role="presentation" cellpadding="0" cellspacing="0" border="0"';

// ---------------------------------------------------------------------------------------------
// Facts shared by the order mails

/** Trailing slashes off, so `${base}/order/…` never has two. */
function baseUrl(shopUrl: string): string {
  return shopUrl.replace(/\/+$/, '');
}

function orderUrl(order: Order, shopUrl: string): string {
  return `${baseUrl(shopUrl)}/order/${encodeURIComponent(order._id)}`;
}

function productUrl(productId: string, shopUrl: string): string {
  return `${baseUrl(shopUrl)}/products/${encodeURIComponent(productId)}`;
}

/** Quantity × unit price, summed in cents so it never drifts. */
function lineTotal(item: Order['orderItems'][number]): number {
  return fromCents(toCents(item.price) * item.qty);
}

/** M-Pesa charges whole shillings: the total rounded up, as the payment prompt asks for. */
function mpesaAmount(order: Order): number {
  return Math.ceil(toCents(order.totalPrice) / 100);
}

function customerOf(order: Order): NonNullable<Order['user']> {
  if (!order.user) throw new Error(`Order ${order._id} has no customer to mail`);
  return order.user;
}

function summaryRows(order: Order): [string, string][] {
  return [
    ['Items', formatKsh(order.itemsPrice)],
    ['Shipping', formatKsh(order.shippingPrice)],
    ['Tax', formatKsh(order.taxPrice)],
    ['Total', formatKsh(order.totalPrice)],
  ];
}

function addressRows(order: Order): [string, string][] {
  const a = order.shippingAddress;
  return [
    ['County', a.county],
    ['Sub county', a.sub_county],
    ['Ward', a.ward],
    ['Postal code', a.postalCode],
    ['Phone', a.phoneNumber],
  ];
}

// ---------------------------------------------------------------------------------------------
// Plain text pieces

function textFooter(shopUrl: string | undefined, shopName: string): string {
  return ['--', shopUrl ? `${shopName} · ${shopUrl}` : shopName].join('\n');
}

/** Label/value lines with the values lined up. */
function textPairs(rows: [string, string][]): string {
  const width = Math.max(...rows.map(([label]) => label.length)) + 1;
  return rows.map(([label, value]) => `${`${label}:`.padEnd(width + 1)}${value}`).join('\n');
}

function textItems(order: Order): string {
  return order.orderItems
    .map((item) => `- ${item.name}\n  ${item.qty} × ${formatKsh(item.price)} = ${formatKsh(lineTotal(item))}`)
    .join('\n');
}

// ---------------------------------------------------------------------------------------------
// HTML pieces

interface Layout {
  /** The document title: the subject. */
  title: string;
  /** The line a mail client shows next to the subject in the inbox. */
  preheader: string;
  /** The content, already HTML. */
  body: string;
  shopUrl?: string;
  /** Why this person gets the mail, shown small in the footer. */
  reason: string;
  /** The merchant's name for the shop (its settings): text, escaped here. */
  shopName: string;
}

function layout({ title, preheader, body, shopUrl, reason, shopName }: Layout): string {
  const name = escapeHtml(shopName);
  const brand = shopUrl ? `<a href="${escapeHtml(shopUrl)}" style="color:#ffffff;text-decoration:none">${name}</a>` : name;
  const footerLine = shopUrl
    ? `${name} · <a href="${escapeHtml(shopUrl)}" style="color:${MUTED};text-decoration:underline">${escapeHtml(shopUrl)}</a>`
    : name;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light only">
<meta name="supported-color-schemes" content="light">
<title>${escapeHtml(title)}</title>
</head>
<body style="margin:0;padding:0;background-color:${PAGE};-webkit-text-size-adjust:100%">
<div style="display:none;max-height:0;max-width:0;overflow:hidden;opacity:0;mso-hide:all;font-size:1px;line-height:1px;color:${PAGE}">${escapeHtml(preheader)}</div>
<table ${LAYOUT_TABLE} width="100%" bgcolor="${PAGE}" style="width:100%;background-color:${PAGE}">
<tr><td align="center" style="padding:24px 10px">
<table ${LAYOUT_TABLE} width="600" style="width:100%;max-width:600px;border-collapse:separate">
<tr><td bgcolor="${BRAND}" style="background-color:${BRAND};border-radius:8px 8px 0 0;padding:18px 24px;font-family:${FONT};font-size:24px;line-height:28px;font-weight:700;letter-spacing:0.02em;color:#ffffff">${brand}</td></tr>
<tr><td bgcolor="#ffffff" style="background-color:#ffffff;border:1px solid ${BORDER};border-top:0;border-radius:0 0 8px 8px;padding:28px 24px 24px;font-family:${FONT};font-size:15px;line-height:1.55;color:${TEXT}">
${body}
</td></tr>
<tr><td align="center" style="padding:18px 24px 0;font-family:${FONT};font-size:12px;line-height:1.6;color:${MUTED}">
${footerLine}<br>
${escapeHtml(reason)}
</td></tr>
</table>
</td></tr>
</table>
</body>
</html>`;
}

function heading(text: string): string {
  return `<h1 style="margin:0 0 6px;font-family:${FONT};font-size:22px;line-height:1.3;font-weight:700;color:${TEXT}">${escapeHtml(text)}</h1>`;
}

function subheading(text: string): string {
  return `<h2 style="margin:28px 0 10px;font-family:${FONT};font-size:13px;line-height:1.4;font-weight:700;letter-spacing:0.06em;text-transform:uppercase;color:${MUTED}">${escapeHtml(text)}</h2>`;
}

/** A paragraph of HTML the caller has already escaped. */
function para(html: string, extra = ''): string {
  return `<p style="margin:0 0 14px;${extra}">${html}</p>`;
}

function muted(html: string): string {
  return `<span style="color:${MUTED};font-size:13px">${html}</span>`;
}

function link(href: string, text: string): string {
  return `<a href="${escapeHtml(href)}" style="color:${ACCENT};text-decoration:underline">${escapeHtml(text)}</a>`;
}

/** A link that looks like a button in every client, Outlook's cell background included. */
function button(href: string, label: string, { showAddress = true } = {}): string {
  return `<table ${LAYOUT_TABLE} style="margin:22px 0 8px"><tr>
<td bgcolor="${ACCENT}" style="background-color:${ACCENT};border-radius:6px">
<a href="${escapeHtml(href)}" style="display:inline-block;padding:12px 24px;font-family:${FONT};font-size:15px;line-height:20px;font-weight:600;color:#ffffff;text-decoration:none;border-radius:6px">${escapeHtml(label)}</a>
</td></tr></table>
${showAddress ? para(muted(`Or open this address: ${link(href, href)}`), 'word-break:break-all') : ''}`;
}

/** Label/value rows; values are escaped here. `strongLast` makes the last row a total. */
function pairsTable(rows: [string, string][], { strongLast = false, alignValues = 'left' } = {}): string {
  const cells = rows
    .map(([label, value], i) => {
      const total = strongLast && i === rows.length - 1;
      const top = total ? `border-top:2px solid ${BORDER};padding-top:10px;` : '';
      const weight = total ? 'font-weight:700;font-size:16px;' : '';
      return `<tr>
<td width="1%" style="${top}padding-bottom:4px;padding-right:24px;white-space:nowrap;vertical-align:top;${weight}color:${total ? TEXT : MUTED}">${escapeHtml(label)}</td>
<td align="${alignValues}" style="${top}padding-bottom:4px;vertical-align:top;${weight}color:${TEXT}">${escapeHtml(value)}</td>
</tr>`;
    })
    .join('\n');
  return `<table ${LAYOUT_TABLE} width="100%" style="width:100%;font-family:${FONT};font-size:15px;line-height:1.5">\n${cells}\n</table>`;
}

/** A tinted box; `accent` draws a coloured bar down its left side. */
function panel(html: string, accent?: string): string {
  const bar = accent ? `border-left:4px solid ${accent};` : '';
  return `<table ${LAYOUT_TABLE} width="100%" style="width:100%;margin:0 0 8px"><tr>
<td bgcolor="${PANEL}" style="background-color:${PANEL};${bar}border-radius:6px;padding:16px 18px;font-family:${FONT};font-size:15px;line-height:1.55;color:${TEXT}">
${html}
</td></tr></table>`;
}

/**
 * The items as a real data table (headers announced by screen readers): the name with the unit
 * price under it, the quantity and the line total. Three columns stay readable on a phone.
 */
function itemsTable(order: Order, shopUrl: string): string {
  const th = (label: string, align: string) =>
    `<th scope="col" align="${align}" style="padding:0 0 8px;border-bottom:2px solid ${BORDER};font-size:12px;font-weight:700;letter-spacing:0.06em;text-transform:uppercase;color:${MUTED};text-align:${align}">${label}</th>`;
  const rows = order.orderItems
    .map((item) => {
      const name = item._id ? link(productUrl(item._id, shopUrl), item.name) : escapeHtml(item.name);
      return `<tr>
<td style="padding:12px 12px 12px 0;border-bottom:1px solid ${BORDER};vertical-align:top">${name}<br>${muted(`${escapeHtml(formatKsh(item.price))} each`)}</td>
<td align="center" style="padding:12px 8px;border-bottom:1px solid ${BORDER};vertical-align:top;white-space:nowrap">${item.qty}</td>
<td align="right" style="padding:12px 0 12px 8px;border-bottom:1px solid ${BORDER};vertical-align:top;white-space:nowrap">${escapeHtml(formatKsh(lineTotal(item)))}</td>
</tr>`;
    })
    .join('\n');
  return `<table width="100%" cellpadding="0" cellspacing="0" border="0" style="width:100%;border-collapse:collapse;font-family:${FONT};font-size:15px;line-height:1.45;color:${TEXT}">
<tr>${th('Item', 'left')}${th('Qty', 'center')}${th('Total', 'right')}</tr>
${rows}
</table>`;
}

/** The price summary, right under the items. */
function summaryTable(order: Order): string {
  return `<table ${LAYOUT_TABLE} width="100%" style="width:100%;margin-top:12px"><tr>
<td style="width:35%"></td>
<td>${pairsTable(summaryRows(order), { strongLast: true, alignValues: 'right' })}</td>
</tr></table>`;
}

// ---------------------------------------------------------------------------------------------
// The mails

export function passwordResetMail(to: string, name: string, link: string, shopName: string = SHOP_NAME): MailMessage {
  const subject = `Reset your ${shopName} password`;
  // The link is {shopUrl}/reset-password/{token}; its start names the shop in the footer.
  const at = link.indexOf('/reset-password/');
  const shopUrl = at > 0 ? link.slice(0, at) : undefined;
  return {
    to,
    subject,
    text: [
      `Hello ${name},`,
      '',
      `Someone asked to reset the password of your ${shopName} account. To choose a new password, open this link within 1 hour:`,
      '',
      link,
      '',
      'If it was not you, ignore this message: your password stays as it is.',
      '',
      textFooter(shopUrl, shopName),
    ].join('\n'),
    html: layout({
      shopName,
      title: subject,
      preheader: 'Choose a new password within 1 hour.',
      shopUrl,
      reason: `You get this e-mail because a password reset was asked for your ${shopName} account.`,
      body: [
        heading('Reset your password'),
        para(`Hello ${escapeHtml(name)},`, 'margin-top:14px'),
        para(
          `Someone asked to reset the password of your ${escapeHtml(shopName)} account. To choose a new password, open this link within 1 hour:`,
        ),
        button(link, 'Reset my password'),
        para('If it was not you, ignore this message: your password stays as it is.', 'margin:14px 0 0'),
      ].join('\n'),
    }),
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
  const advice =
    `If it was not you, someone else may have your account: reply to this e-mail or contact ${shopName} at once` +
    (change.newEmail ? ' so that we can give it back to you.' : `, and choose a new password at ${reset}.`);
  const adviceHtml = change.newEmail
    ? escapeHtml(advice)
    : `If it was not you, someone else may have your account: reply to this e-mail or contact ${escapeHtml(shopName)} at once, and ${link(reset, 'choose a new password')}.`;
  return {
    to,
    subject,
    text: [
      `Hello ${name},`,
      '',
      ...facts,
      '',
      advice,
      '',
      'If it was you, there is nothing to do.',
      '',
      textFooter(shopUrl, shopName),
    ].join('\n'),
    html: layout({
      shopName,
      title: subject,
      preheader: facts[0] ?? subject,
      shopUrl,
      reason: `You get this e-mail because the ${what} changed on your ${shopName} account.`,
      body: [
        heading(subject),
        para(`Hello ${escapeHtml(name)},`, 'margin-top:14px'),
        ...facts.map((fact) => para(escapeHtml(fact))),
        para(adviceHtml),
        para('If it was you, there is nothing to do.', 'margin:14px 0 0'),
      ].join('\n'),
    }),
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
    html: layout({
      shopName,
      title: subject,
      preheader: `Wrong passwords were tried ${pause.failures} times; sign-in is paused for ${paused}.`,
      shopUrl,
      reason: `You get this e-mail because many wrong passwords were tried on your ${shopName} account.`,
      body: [
        heading(subject),
        para(`Hello ${escapeHtml(name)},`, 'margin-top:14px'),
        para(escapeHtml(what)),
        para(escapeHtml(pausedLine)),
        para(
          'If it was not you, someone may be trying to guess your password: we suggest you choose a new one, one you use for no other site.',
        ),
        button(reset, 'Choose a new password'),
        para(
          `If it was you, wait ${escapeHtml(paused)} and sign in again. If you have forgotten your password, ${link(reset, 'choose a new one')}.`,
          'margin:14px 0 0',
        ),
      ].join('\n'),
    }),
  };
}

/** Sent when an order is created: what was ordered, where it goes and how to pay with M-Pesa. */
/** The Paybill or Till lines of the placed mail: the fallback when the prompt does not come. */
function lipaNaMpesaRows(order: Order, shop: LipaNaMpesa, amount: string): [string, string][] {
  if ('paybill' in shop)
    return [
      ['Business number', shop.paybill],
      ['Account number', order.orderNumber],
      ['Amount', amount],
    ];
  return [
    ['Till number', shop.till],
    ['Amount', amount],
  ];
}

export function orderPlacedMail(order: Order, shopUrl: string, shop: LipaNaMpesa, shopName: string = SHOP_NAME): MailMessage {
  const user = customerOf(order);
  const base = baseUrl(shopUrl);
  const short = order.orderNumber;
  const url = orderUrl(order, shopUrl);
  // Written as the order page's Pay button writes it: "Ksh. 4,412.00".
  const amount = formatKsh(mpesaAmount(order));
  const subject = `Your ${shopName} order ${short} is placed`;
  const howToPay = `Pay with M-Pesa from your order page: open ${url}, enter your M-Pesa number and confirm the prompt on your phone with your PIN. Amount: ${amount}`;
  const fallbackTitle = 'paybill' in shop ? 'Or pay with M-Pesa Paybill' : 'Or pay with M-Pesa Buy Goods (Till)';
  const fallbackRows = lipaNaMpesaRows(order, shop, amount);
  const payText = order.isPaid
    ? ['This order is already paid. Thank you!']
    : ['HOW TO PAY', howToPay, '', `${fallbackTitle}: on your phone open M-Pesa, Lipa na M-Pesa.`, textPairs(fallbackRows)];

  const text = [
    `Hello ${user.name},`,
    '',
    `Thank you for your order. We have received order ${short}, placed on ${nairobiDay(order.createdAt)}.`,
    '',
    ...payText,
    '',
    'ITEMS',
    textItems(order),
    '',
    'SUMMARY',
    textPairs(summaryRows(order)),
    '',
    'SHIPPING ADDRESS',
    textPairs(addressRows(order)),
    '',
    `Your order: ${url}`,
    '',
    textFooter(base, shopName),
  ].join('\n');

  const payHtml = order.isPaid
    ? panel(para('This order is already paid. Thank you!', 'margin:0'), ACCENT)
    : panel(
        [
          `<p style="margin:0 0 8px;font-size:13px;font-weight:700;letter-spacing:0.06em;text-transform:uppercase;color:${ACCENT}">How to pay</p>`,
          para(
            `Pay with M-Pesa from your order page: open ${link(url, url)}, enter your M-Pesa number and confirm the prompt on your phone with your PIN.`,
            'word-break:break-word',
          ),
          para(`Amount: <strong style="font-size:18px">${escapeHtml(amount)}</strong>`, 'margin:0 0 12px'),
          para(`<strong>${escapeHtml(fallbackTitle)}</strong>: on your phone open M-Pesa, Lipa na M-Pesa.`, 'margin:0 0 4px'),
          pairsTable(fallbackRows),
        ].join('\n'),
        ACCENT,
      );

  const html = layout({
    shopName,
    title: subject,
    preheader: order.isPaid
      ? `Order ${short} is placed and paid.`
      : `Order ${short} is placed. Amount to pay with M-Pesa: ${amount}`,
    shopUrl: base,
    reason: `You get this e-mail because you placed an order at ${shopName}.`,
    body: [
      heading('Thank you for your order'),
      para(muted(`Order ${escapeHtml(short)} · placed on ${escapeHtml(nairobiDay(order.createdAt))}`)),
      para(`Hello ${escapeHtml(user.name)},`, 'margin-top:18px'),
      para(
        order.isPaid
          ? 'We have received your order. Here is what you ordered.'
          : 'We have received your order. It is reserved for you and we will ship it as soon as it is paid.',
      ),
      payHtml,
      // The how-to-pay text already spells the address out.
      order.isPaid ? '' : button(url, 'Pay with M-Pesa', { showAddress: false }),
      subheading('What you ordered'),
      itemsTable(order, shopUrl),
      summaryTable(order),
      subheading('Shipping address'),
      panel(pairsTable(addressRows(order))),
      order.isPaid ? button(url, 'View your order') : '',
    ].join('\n'),
  });

  return { to: user.email, subject, text, html };
}

/**
 * Sent when an order's payment is recorded, with the M-Pesa receipt when there is one. The amount
 * is what M-Pesa charged (whole shillings), not the total with its cents.
 */
export function orderPaidMail(
  order: Order,
  shopUrl: string,
  amountPaid: number = order.totalPrice,
  shopName: string = SHOP_NAME,
): MailMessage {
  const user = customerOf(order);
  const base = baseUrl(shopUrl);
  const short = order.orderNumber;
  const url = orderUrl(order, shopUrl);
  const subject = `Payment received for your ${shopName} order ${short}`;
  const facts: [string, string][] = [
    ['Order', short],
    ['Amount paid', formatKsh(amountPaid)],
    ...(order.paidAt ? ([['Paid on', nairobiDay(order.paidAt)]] as [string, string][]) : []),
    ['Payment method', 'M-Pesa'],
    ...(order.mpesaReceipt ? ([['M-Pesa receipt', order.mpesaReceipt]] as [string, string][]) : []),
  ];

  const text = [
    `Hello ${user.name},`,
    '',
    `Thank you! We have received your payment for order ${short}. We will now prepare your order and let you know when it has been delivered.`,
    '',
    textPairs(facts),
    '',
    `Your order: ${url}`,
    '',
    textFooter(base, shopName),
  ].join('\n');

  const html = layout({
    shopName,
    title: subject,
    preheader: `We have received ${formatKsh(amountPaid)} for order ${short}.${order.mpesaReceipt ? ` M-Pesa receipt: ${order.mpesaReceipt}` : ''}`,
    shopUrl: base,
    reason: `You get this e-mail because you paid for an order at ${shopName}.`,
    body: [
      heading('Payment received'),
      para(muted(`Order ${escapeHtml(short)}`)),
      para(`Hello ${escapeHtml(user.name)},`, 'margin-top:18px'),
      para(
        `Thank you! We have received your payment for order ${escapeHtml(short)}. We will now prepare your order and let you know when it has been delivered.`,
      ),
      panel(pairsTable(facts), ACCENT),
      button(url, 'View your order'),
    ].join('\n'),
  });

  return { to: user.email, subject, text, html };
}

/** Sent when an order is marked delivered: what arrived, and an invitation to review it. */
export function orderDeliveredMail(order: Order, shopUrl: string, shopName: string = SHOP_NAME): MailMessage {
  const user = customerOf(order);
  const base = baseUrl(shopUrl);
  const short = order.orderNumber;
  const url = orderUrl(order, shopUrl);
  const subject = `Your ${shopName} order ${short} has been delivered`;
  const deliveredOn = order.deliveredAt ? ` on ${nairobiDay(order.deliveredAt)}` : '';
  const reviewable = order.orderItems.some((item) => item._id !== null);
  const reviewLine = 'How do you like your purchase? Other shoppers would love to hear it: leave a review on the product page.';
  const a = order.shippingAddress;
  const place = `${a.ward}, ${a.sub_county}, ${a.county}`;

  const text = [
    `Hello ${user.name},`,
    '',
    `Good news: your order ${short} was delivered${deliveredOn} to ${place}.`,
    '',
    'ITEMS',
    ...order.orderItems.map(
      (item) => `- ${item.name} × ${item.qty}${item._id ? `\n  Review it: ${productUrl(item._id, shopUrl)}` : ''}`,
    ),
    '',
    `Total: ${formatKsh(order.totalPrice)}`,
    ...(reviewable ? ['', reviewLine] : []),
    '',
    `Your order: ${url}`,
    '',
    textFooter(base, shopName),
  ].join('\n');

  const itemRows = order.orderItems
    .map((item) => {
      const name = item._id ? link(productUrl(item._id, shopUrl), item.name) : escapeHtml(item.name);
      const review = item._id
        ? `<a href="${escapeHtml(productUrl(item._id, shopUrl))}" style="color:${ACCENT};font-size:13px;font-weight:600;text-decoration:none;white-space:nowrap">Write a review&nbsp;&rsaquo;</a>`
        : '';
      return `<tr>
<td style="padding:12px 12px 12px 0;border-bottom:1px solid ${BORDER};vertical-align:top">${name}<br>${muted(`Quantity: ${item.qty}`)}</td>
<td align="right" style="padding:12px 0;border-bottom:1px solid ${BORDER};vertical-align:top">${review}</td>
</tr>`;
    })
    .join('\n');

  const html = layout({
    shopName,
    title: subject,
    preheader: `Order ${short} was delivered${deliveredOn}. We hope you enjoy it!`,
    shopUrl: base,
    reason: `You get this e-mail because your ${shopName} order was delivered.`,
    body: [
      heading('Your order has been delivered'),
      para(
        muted(
          `Order ${escapeHtml(short)}${order.deliveredAt ? ` · delivered on ${escapeHtml(nairobiDay(order.deliveredAt))}` : ''}`,
        ),
      ),
      para(`Hello ${escapeHtml(user.name)},`, 'margin-top:18px'),
      para(`Good news: your order ${escapeHtml(short)} was delivered${escapeHtml(deliveredOn)} to ${escapeHtml(place)}.`),
      reviewable ? panel(para(escapeHtml(reviewLine), 'margin:0'), ACCENT) : '',
      subheading('What you ordered'),
      `<table ${LAYOUT_TABLE} width="100%" style="width:100%;border-collapse:collapse;font-family:${FONT};font-size:15px;line-height:1.45;color:${TEXT}">\n${itemRows}\n</table>`,
      `<table ${LAYOUT_TABLE} width="100%" style="width:100%;margin-top:12px;font-family:${FONT};font-size:16px;font-weight:700;color:${TEXT}"><tr><td>Total</td><td align="right">${escapeHtml(formatKsh(order.totalPrice))}</td></tr></table>`,
      button(url, 'View your order'),
    ].join('\n'),
  });

  return { to: user.email, subject, text, html };
}

// ---------------------------------------------------------------------------------------------
// Merchant alerts: to the settings' alert address, about the shop rather than one shopper

function customerLine(order: Order): string {
  return order.user ? `${order.user.name} <${order.user.email}>` : 'a deleted account';
}

/**
 * A new order: paid (the usual alert), or placed and not paid yet when the merchant asked for
 * those too. What was ordered, by whom, where it goes, and the link to the order.
 */
export function newOrderAlertMail(to: string, order: Order, shopUrl: string, shopName: string): MailMessage {
  const base = baseUrl(shopUrl);
  const short = order.orderNumber;
  // The order page shows an admin its actions (Mark As Paid, Mark As Delivered).
  const url = orderUrl(order, shopUrl);
  const state = order.isPaid ? 'paid' : 'not paid yet';
  const subject = order.isPaid
    ? `New paid order ${short}: ${formatKsh(order.totalPrice)}`
    : `New order ${short} (not paid yet): ${formatKsh(order.totalPrice)}`;
  const facts: [string, string][] = [
    ['Order', short],
    ['Customer', customerLine(order)],
    ['Total', formatKsh(order.totalPrice)],
    ['Payment', order.isPaid ? `Paid${order.mpesaReceipt ? `, M-Pesa receipt ${order.mpesaReceipt}` : ''}` : 'Not paid yet'],
  ];
  const text = [
    `A new order was placed at ${shopName} (${state}).`,
    '',
    textPairs(facts),
    '',
    'ITEMS',
    textItems(order),
    '',
    'SHIPPING ADDRESS',
    textPairs(addressRows(order)),
    '',
    `Open the order: ${url}`,
    '',
    textFooter(base, shopName),
  ].join('\n');
  const html = layout({
    shopName,
    title: subject,
    preheader: `${customerLine(order)} ordered ${order.orderItems.length} item(s) for ${formatKsh(order.totalPrice)}.`,
    shopUrl: base,
    reason: `You get this e-mail because this address receives ${shopName}'s merchant alerts (admin settings).`,
    body: [
      heading(order.isPaid ? 'New paid order' : 'New order, not paid yet'),
      para(muted(`Order ${escapeHtml(short)} · placed on ${escapeHtml(nairobiDay(order.createdAt))}`)),
      // Short values only in the two columns: a long address must not widen the mail on a phone.
      panel(pairsTable(facts.filter(([label]) => label !== 'Order' && label !== 'Customer')), order.isPaid ? ACCENT : undefined),
      subheading('Customer'),
      para(
        order.user
          ? `${escapeHtml(order.user.name)}<br>${link(`mailto:${order.user.email}`, order.user.email)}`
          : 'A deleted account',
        'word-break:break-word',
      ),
      subheading('What was ordered'),
      itemsTable(order, shopUrl),
      summaryTable(order),
      subheading('Shipping address'),
      panel(pairsTable(addressRows(order))),
      button(url, 'Open the order'),
    ].join('\n'),
  });
  return { to, subject, text, html };
}

export interface LowStockLine {
  productId: string;
  name: string;
  countInStock: number;
}

function stockText(count: number): string {
  return count === 0 ? 'Out of stock' : `${count} left`;
}

/** An order left products at or below the low-stock threshold: which, how many are left, where to restock. */
export function lowStockAlertMail(
  to: string,
  order: Order,
  lines: readonly LowStockLine[],
  threshold: number,
  shopUrl: string,
  shopName: string,
): MailMessage {
  const base = baseUrl(shopUrl);
  const editUrl = (line: LowStockLine) => `${base}/admin/product/${encodeURIComponent(line.productId)}/edit`;
  const first = lines[0];
  const subject =
    lines.length === 1 && first
      ? `Low stock: ${first.name} (${stockText(first.countInStock).toLowerCase()})`
      : `Low stock: ${lines.length} products after order ${order.orderNumber}`;
  const intro = `Order ${order.orderNumber} left ${lines.length === 1 ? 'this product' : 'these products'} at or below your low-stock threshold of ${threshold}.`;
  const text = [
    intro,
    '',
    ...lines.map((line) => `- ${line.name}: ${stockText(line.countInStock)}\n  Restock: ${editUrl(line)}`),
    '',
    textFooter(base, shopName),
  ].join('\n');
  const rows = lines
    .map(
      (line) => `<tr>
<td style="padding:12px 12px 12px 0;border-bottom:1px solid ${BORDER};vertical-align:top">${link(editUrl(line), line.name)}</td>
<td align="right" style="padding:12px 0;border-bottom:1px solid ${BORDER};vertical-align:top;white-space:nowrap;font-weight:700;color:${line.countInStock === 0 ? '#b02a37' : TEXT}">${escapeHtml(stockText(line.countInStock))}</td>
</tr>`,
    )
    .join('\n');
  const html = layout({
    shopName,
    title: subject,
    preheader: intro,
    shopUrl: base,
    reason: `You get this e-mail because this address receives ${shopName}'s merchant alerts (admin settings).`,
    body: [
      heading('Low stock'),
      para(escapeHtml(intro), 'margin-top:14px'),
      `<table ${LAYOUT_TABLE} width="100%" style="width:100%;border-collapse:collapse;font-family:${FONT};font-size:15px;line-height:1.45;color:${TEXT}">\n${rows}\n</table>`,
      para(muted('Open a product to change its stock.'), 'margin-top:14px'),
    ].join('\n'),
  });
  return { to, subject, text, html };
}

export interface PaymentExceptionAlert {
  receipt: string | null;
  amount: number;
  phone: string | null;
  exception: PaymentException;
  /** The order it names, when it names one. */
  orderNumber: string | null;
  /** Why M-Pesa has not confirmed it, or its amount as M-Pesa wrote it. */
  detail?: string | null;
}

/** A payment that does not simply pay an order: what it is, and the Payments screen to settle it on. */
export function paymentExceptionAlertMail(
  to: string,
  payment: PaymentExceptionAlert,
  shopUrl: string,
  shopName: string,
): MailMessage {
  const base = baseUrl(shopUrl);
  const url = `${base}/admin/payments`;
  const reason = EXCEPTION_REASON[payment.exception];
  const subject = `Payment needs attention: ${formatKsh(payment.amount)}${payment.receipt ? ` (${payment.receipt})` : ''}`;
  const facts: [string, string][] = [
    ['Amount', formatKsh(payment.amount)],
    ...(payment.receipt ? ([['M-Pesa receipt', payment.receipt]] as [string, string][]) : []),
    ...(payment.phone ? ([['Phone', payment.phone]] as [string, string][]) : []),
    ['Order', payment.orderNumber ?? 'None matched'],
  ];
  if (payment.detail) facts.push(['Detail', payment.detail]);
  const text = [
    reason,
    '',
    textPairs(facts),
    '',
    `Settle it on the Payments screen: ${url}`,
    '',
    textFooter(base, shopName),
  ].join('\n');
  const html = layout({
    shopName,
    title: subject,
    preheader: reason,
    shopUrl: base,
    reason: `You get this e-mail because this address receives ${shopName}'s merchant alerts (admin settings).`,
    body: [
      heading('A payment needs your attention'),
      para(muted(`M-Pesa payment of ${escapeHtml(formatKsh(payment.amount))}`)),
      panel(para(escapeHtml(reason), 'margin:0'), '#b02a37'),
      pairsTable(facts),
      button(url, 'Open Payments'),
    ].join('\n'),
  });
  return { to, subject, text, html };
}

export interface ParkedCallbackAlert {
  /** stk, c2b_confirmation, reversal_result, … */
  kind: string;
  receivedAt: Date;
  tries: number;
}

/** A message from M-Pesa the shop could not act on after every try: kept as it came, for the merchant to look at. */
export function callbackParkedAlertMail(to: string, parked: ParkedCallbackAlert, shopUrl: string, shopName: string): MailMessage {
  const base = baseUrl(shopUrl);
  const url = `${base}/admin/payments`;
  const subject = `An M-Pesa message could not be processed (${parked.kind})`;
  const reason = `The shop tried ${parked.tries} times to act on a message M-Pesa sent and failed each time. It is kept exactly as it came, and no longer retried.`;
  const facts: [string, string][] = [
    ['Kind', parked.kind],
    ['Received', parked.receivedAt.toISOString()],
    ['Tries', String(parked.tries)],
  ];
  const text = [
    reason,
    '',
    textPairs(facts),
    '',
    `Check your M-Pesa statement and the Payments screen: ${url}`,
    '',
    textFooter(base, shopName),
  ].join('\n');
  const html = layout({
    shopName,
    title: subject,
    preheader: reason,
    shopUrl: base,
    reason: `You get this e-mail because this address receives ${shopName}'s merchant alerts (admin settings).`,
    body: [
      heading('An M-Pesa message needs your attention'),
      panel(para(escapeHtml(reason), 'margin:0'), '#b02a37'),
      pairsTable(facts),
      button(url, 'Open Payments'),
    ].join('\n'),
  });
  return { to, subject, text, html };
}
