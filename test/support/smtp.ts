import type { AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { vi } from 'vitest';

/**
 * A real SMTP server on 127.0.0.1 for the tests: it accepts every message and keeps it parsed.
 * It can be stopped and started again on the same port, to play a mail server outage.
 */
export class TestSmtpServer {
  readonly received: ParsedMail[] = [];
  private server: SMTPServer | undefined;
  port = 0;

  async start(): Promise<void> {
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData: (stream, _session, callback) => {
        simpleParser(stream)
          .then((mail) => {
            this.received.push(mail);
            callback();
          })
          .catch((error: Error) => callback(error));
      },
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.server.address() as AddressInfo).port;
    this.server = server;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  /** The messages sent to `to`, oldest first. */
  to(address: string): ParsedMail[] {
    return this.received.filter((m) => (Array.isArray(m.to) ? m.to : [m.to]).some((t) => t?.text.includes(address)));
  }

  /** Waits for the `n`th message to `to` (1-based) and returns it. */
  waitFor(address: string, n = 1, timeoutMs = 8000): Promise<ParsedMail> {
    return vi.waitFor(
      () => {
        const found = this.to(address)[n - 1];
        if (!found) throw new Error(`no mail #${n} to ${address} within ${timeoutMs} ms`);
        return found;
      },
      { timeout: timeoutMs, interval: 50 },
    );
  }
}

export function resetLink(mail: ParsedMail): string {
  const match = /(https?:\/\/\S+\/reset-password\/[A-Za-z0-9_-]+)/.exec(mail.text ?? '');
  if (!match?.[1]) throw new Error('no reset link in the mail');
  return match[1];
}
