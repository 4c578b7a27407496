import { DEFAULT_PASSWORD_COST } from '../domain/passwords.js';
import { publicHttps } from './addresses.js';
import { trustsEveryone } from './trust-proxy.js';
import { type Env, flag } from './variables.js';

/** A flag for the production checks, which run before (and instead of) the full parse. */
function flagSet(env: Env, name: string): boolean {
  return flag(name).safeParse(env[name]).data === true;
}

/**
 * A production start never takes a demo default (see docs/deploying.md, Checklist for a real shop):
 * each problem is one line naming the setting to fix. An empty list means it may start.
 */
export function productionProblems(env: Env): string[] {
  const problems: string[] = [];
  const mpesaEnv = env.MPESA_ENV || undefined;
  if (mpesaEnv === undefined) {
    problems.push(
      'NODE_ENV=production needs MPESA_ENV set to production (or sandbox): unset, it is the simulator, which marks orders paid without payment',
    );
  } else if (mpesaEnv === 'simulator' && !flagSet(env, 'ALLOW_SIMULATOR_IN_PRODUCTION')) {
    problems.push(
      'MPESA_ENV=simulator marks orders paid without payment: with NODE_ENV=production it also needs ALLOW_SIMULATOR_IN_PRODUCTION=true (staging only)',
    );
  }
  if (env.SEED_DEMO === undefined || env.SEED_DEMO === '') {
    problems.push(
      'NODE_ENV=production needs SEED_DEMO set explicitly (false for a real shop): the demo seeds shoppers with a published password',
    );
  }
  const publicUrl = env.PUBLIC_URL || '';
  if (!publicHttps(publicUrl)) {
    problems.push(
      `NODE_ENV=production needs PUBLIC_URL to be the shop's public https:// address, not localhost; got "${publicUrl || '(unset)'}"`,
    );
  }
  const callbackBase = env.MPESA_CALLBACK_BASE_URL || '';
  if (callbackBase && !publicHttps(callbackBase)) {
    problems.push(
      `NODE_ENV=production needs MPESA_CALLBACK_BASE_URL to be a public https:// address, not localhost; got "${callbackBase}"`,
    );
  }
  if (!env.METRICS_TOKEN && !flagSet(env, 'METRICS_PUBLIC')) {
    problems.push(
      'NODE_ENV=production needs METRICS_TOKEN (or METRICS_PUBLIC=true when the proxy keeps /metrics internal): open metrics tell registered emails from unknown ones',
    );
  }
  if (trustsEveryone(env.TRUST_PROXY)) {
    problems.push(
      `NODE_ENV=production refuses TRUST_PROXY=${env.TRUST_PROXY?.trim()}: it believes X-Forwarded-For from anyone, so any client could choose its address, pass MPESA_CALLBACK_ALLOWED_IPS and dodge rate limits. Set TRUST_PROXY to the reverse proxies' addresses or CIDR ranges (e.g. 127.0.0.1 for nginx on this machine, or the load balancer's subnet)`,
    );
  }
  for (const [name, least] of [
    ['ARGON2_MEMORY_KIB', DEFAULT_PASSWORD_COST.memoryKib],
    ['ARGON2_TIME_COST', DEFAULT_PASSWORD_COST.timeCost],
  ] as const) {
    const value = Number(env[name]?.trim() || least);
    if (!(value >= least)) {
      problems.push(
        `NODE_ENV=production needs ${name} of at least ${least} (the default), got "${env[name]}": a lower cost makes stolen password hashes quick to guess`,
      );
    }
  }
  return problems;
}
