import { execFileSync } from 'node:child_process';

/**
 * Debian's Chromium, as the browser tests and the benchmark drive it: CHROME_PATH, else
 * `chromium` on PATH. There is no fallback and no skip: without a browser they fail and say why.
 */
export function chromiumPath(): string {
  if (process.env.CHROME_PATH) return process.env.CHROME_PATH;
  try {
    return execFileSync('which', ['chromium'], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error('Chromium not found: install Debian\'s "chromium" package (apt-get install -y chromium) or set CHROME_PATH');
  }
}

/** Headless, and no calls home: this machine's network is closed, and Chromium would keep trying. */
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
