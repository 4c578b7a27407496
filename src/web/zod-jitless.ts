import { z } from 'zod';

/**
 * The shop's content security policy allows no eval (script-src 'self'). Zod compiles fast object
 * parsers with `new Function` unless told not to, and its probe for that is reported by the
 * browser as a CSP violation even though Zod catches it. The forms here are small: Zod's plain
 * interpreter is fast enough, and the policy stays quiet. The screens that validate with
 * zod (the admin edit forms) import this first; the home page does not load zod at all.
 */
z.config({ jitless: true });
