import { SHOP_NAME } from '../../shared/constants.js';
import type { MailMessage } from './mailer.js';

/** Escapes text for HTML so names and addresses can never become markup in a mail. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
}

export function passwordResetMail(to: string, name: string, link: string): MailMessage {
  return {
    to,
    subject: `Reset your ${SHOP_NAME} password`,
    text: [
      `Hello ${name},`,
      '',
      `Someone asked to reset the password of your ${SHOP_NAME} account. To choose a new password, open this link within 1 hour:`,
      '',
      link,
      '',
      'If it was not you, ignore this message: your password stays as it is.',
    ].join('\n'),
    html: `<!doctype html><html><body style="font-family:Arial,Helvetica,sans-serif;color:#212529">
<p>Hello ${escapeHtml(name)},</p>
<p>Someone asked to reset the password of your ${SHOP_NAME} account. To choose a new password, open this link within 1 hour:</p>
<p><a href="${escapeHtml(link)}" style="display:inline-block;padding:10px 16px;background:#0d6efd;color:#ffffff;text-decoration:none;border-radius:4px">Reset my password</a></p>
<p style="font-size:13px;color:#6c757d">Or copy this address into your browser: ${escapeHtml(link)}</p>
<p>If it was not you, ignore this message: your password stays as it is.</p>
</body></html>`,
  };
}
