import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import nodemailer from 'nodemailer';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

/** A way to deliver one message now; the mail queue decides when and retries. */
export interface MailTransport {
  /** Delivers a message; resolves to where it went (an outbox file or the relay's message id). */
  send(message: MailMessage): Promise<string>;
  close(): void;
}

/**
 * The outbox: with no mail relay configured every message is written to `dir` as an .eml file
 * (a complete RFC 5322 message, readable as text), so a person trying the shop can follow a
 * password-reset link.
 */
export function outboxTransport(dir: string, from: string): MailTransport {
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    async send(message) {
      const info = await transport.sendMail({ from, ...message });
      await fs.mkdir(dir, { recursive: true });
      const stamp = new Date().toISOString().replace(/[:.]/g, '-');
      const file = path.join(dir, `${stamp}-${randomBytes(4).toString('hex')}.eml`);
      // Written under a temporary name, then renamed: a crash mid-write never leaves an empty or
      // partial .eml, and a reader of the folder only ever sees whole messages.
      const partial = `${file}.${process.pid}.partial`;
      try {
        await fs.writeFile(partial, info.message as Buffer);
        await fs.rename(partial, file);
      } catch (error) {
        await fs.rm(partial, { force: true });
        throw error;
      }
      return file;
    },
    close() {},
  };
}

/**
 * SMTP through nodemailer, from SMTP_URL: smtp://user:pass@host:587 (STARTTLS when offered) or
 * smtps://…:465. Short timeouts, so a dead relay fails fast and the queue retries later.
 */
export function smtpTransport(smtpUrl: string, from: string): MailTransport {
  const url = new URL(smtpUrl);
  const secure = url.protocol === 'smtps:';
  const transport = nodemailer.createTransport({
    host: url.hostname,
    port: Number(url.port) || (secure ? 465 : 587),
    secure,
    ...(url.username && { auth: { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } }),
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 20_000,
  });
  return {
    async send(message) {
      const info = await transport.sendMail({ from, ...message });
      return info.messageId;
    },
    close() {
      transport.close();
    },
  };
}
