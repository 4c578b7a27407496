import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { outboxTransport } from './mailer.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await fs.rm(dir, { recursive: true, force: true });
});

describe('the outbox', () => {
  it('shows a reader of the folder only whole .eml messages, and leaves no temporary file', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'duka-outbox-'));
    dirs.push(dir);
    const outbox = outboxTransport(dir, 'Duka <no-reply@duka.local>');
    const body = 'x'.repeat(200_000);
    let sending = true;
    const seen: string[] = [];
    // A reader looking at the folder while messages are written, as a person or a test does.
    const reader = (async () => {
      while (sending) {
        for (const name of (await fs.readdir(dir).catch(() => [] as string[])).filter((n) => n.endsWith('.eml'))) {
          const text = await fs.readFile(path.join(dir, name), 'utf8');
          if (!text.trimEnd().endsWith('--')) seen.push(`${name}: ${text.length} bytes`);
        }
        await new Promise((r) => setImmediate(r));
      }
    })();
    await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        outbox.send({ to: `reader${i}@example.com`, subject: `Message ${i}`, text: body, html: `<p>${body}</p>` }),
      ),
    );
    sending = false;
    await reader;
    expect(seen).toEqual([]);
    const names = await fs.readdir(dir);
    expect(names.filter((n) => n.endsWith('.eml'))).toHaveLength(30);
    expect(names.filter((n) => !n.endsWith('.eml'))).toEqual([]);
  });
});
