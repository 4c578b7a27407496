// The same zod as 'zod' (whose own entry re-exports v4); imported by this path because vite.config.ts
// sends the web app's 'zod' here.
import { z } from 'zod/v4';

/**
 * The shop's content security policy allows no eval (script-src 'self'). Zod compiles fast object
 * parsers with `new Function` unless told not to, and its probe for that, made when an object
 * schema is built, is reported by the browser as a CSP violation even though Zod catches it. The
 * forms here are small: Zod's plain interpreter is fast enough, and the policy stays quiet.
 *
 * vite.config.ts resolves every `import … from 'zod'` of the web build to this module, so the
 * setting is made before any schema module (src/shared's included) runs, whatever the order of a
 * screen's imports or of the chunks. The home page does not load zod at all.
 */
z.config({ jitless: true });

export * from 'zod/v4';
