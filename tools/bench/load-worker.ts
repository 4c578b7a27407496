import { loadHere, type RequestSpec } from './load.js';

/**
 * The load generator's own process (see load() in load.ts): runs one load when asked, and answers
 * what it measured, with the CPU it used for it.
 */
process.once('message', async (message) => {
  const { baseUrl, specs, connections, seconds, amount } = message as {
    baseUrl: string;
    specs: RequestSpec[];
    connections: number;
    seconds: number;
    amount?: number;
  };
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const run = await loadHere(baseUrl, specs, connections, seconds, amount);
  const cpu = process.cpuUsage(cpuBefore);
  const wallMicros = (performance.now() - started) * 1000;
  process.send?.({ ...run, generatorBusy: (cpu.user + cpu.system) / wallMicros }, () => process.exit(0));
});
