/** Where the global setup (pglite-template.ts) left the seeded PGlite template. */
export const PGLITE_TEMPLATE_ENV = 'DUKA_TEST_PGLITE_TEMPLATE';

/** Where the global setup left the same cluster as initdb made it, with no table yet. */
export const PGLITE_EMPTY_ENV = 'DUKA_TEST_PGLITE_EMPTY';
