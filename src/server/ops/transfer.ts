/**
 * A whole shop in one file and back (npm run db:export, db:import): exportShop writes it
 * (export-shop.ts), importShop loads it (import-shop.ts, reading its lines through
 * import-lines.ts), and transfer-format.ts says what each line of the file holds.
 */

export { exportShop } from './export-shop.js';
export { type ImportOptions, importShop } from './import-shop.js';
export { EXPORT_FORMAT, EXPORT_VERSION, type ExportHeader, type TransferSummary } from './transfer-format.js';
