import fs from 'node:fs/promises';
import path from 'node:path';
import { vi } from 'vitest';

/** Undoes quoted-printable soft line breaks and escapes, so links read whole. */
function decodeQuotedPrintable(text: string): string {
  return text.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** The messages in a shop's mail outbox, oldest first, as text (quoted-printable decoded). */
export async function readOutbox(dataDir: string): Promise<string[]> {
  const dir = path.join(dataDir, 'outbox');
  const files = (await fs.readdir(dir).catch(() => [] as string[])).filter((f) => f.endsWith('.eml')).sort();
  return Promise.all(files.map(async (f) => decodeQuotedPrintable(await fs.readFile(path.join(dir, f), 'utf8'))));
}

/** Waits for a message to `to` (sending is not awaited by the request) and returns it. */
export function waitForMail(dataDir: string, to: string, timeoutMs = 5000): Promise<string> {
  return vi.waitFor(
    async () => {
      const mail = (await readOutbox(dataDir)).reverse().find((m) => new RegExp(`^To: .*${to}`, 'mi').test(m));
      if (!mail) throw new Error(`no mail to ${to} within ${timeoutMs} ms`);
      return mail;
    },
    { timeout: timeoutMs, interval: 50 },
  );
}

/** Waits for a message to `to` whose subject matches, when others may have gone to that address before. */
export function waitForMailAbout(dataDir: string, to: string, subject: RegExp, timeoutMs = 5000): Promise<string> {
  return vi.waitFor(
    async () => {
      const mail = (await readOutbox(dataDir))
        .reverse()
        .find((m) => new RegExp(`^To: .*${to}`, 'mi').test(m) && subject.test(/^Subject: (.*)$/m.exec(m)?.[1] ?? ''));
      if (!mail) throw new Error(`no mail to ${to} about ${subject} within ${timeoutMs} ms`);
      return mail;
    },
    { timeout: timeoutMs, interval: 50 },
  );
}

/** The reset token from the link in a password reset mail's text part. */
export function resetTokenFrom(mail: string): string {
  const match = /\/reset-password\/([A-Za-z0-9_-]+)/.exec(mail);
  if (!match?.[1]) throw new Error('no reset link in the mail');
  return match[1];
}
