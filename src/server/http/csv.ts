import { pipeline, Readable } from 'node:stream';
import { stringify } from 'csv-stringify';

export type CsvCell = string | number | null;

/**
 * Spreadsheets run a cell that starts with = + - @ (or a tab or carriage return before one) as a
 * formula: "=HYPERLINK(…)" typed into a shopper's name would run on the merchant's computer.
 * A leading apostrophe makes Excel, LibreOffice and Google Sheets show such a cell as text.
 */
export function guardFormula(text: string): string {
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}

/**
 * CSV as Excel opens it without asking: UTF-8 with a byte-order mark (so "Wanjirũ" is not
 * mojibake), CRLF line ends, and quotes around any cell with a comma, quote or line break.
 * The rows are pulled from `rows` only as fast as the client reads (the stream's backpressure),
 * so an export of any size holds one batch in memory.
 */
export function csvStream(header: string[], rows: AsyncIterable<CsvCell[]>): Readable {
  const stringifier = stringify({
    bom: true,
    record_delimiter: 'windows',
    // csv-stringify quotes a line break only when it is the record delimiter; a lone \n must be quoted too.
    quoted_match: /[\r\n]/,
    cast: { string: guardFormula },
  });
  async function* withHeader(): AsyncGenerator<CsvCell[]> {
    yield header;
    yield* rows;
  }
  // pipeline, not pipe: a failed read destroys the answer instead of leaving it hanging.
  return pipeline(Readable.from(withHeader()), stringifier, () => {});
}

/** A file name for Content-Disposition: the shop's export of a kind, dated by its Nairobi day. */
export function attachment(name: string): string {
  return `attachment; filename="${name.replace(/[^A-Za-z0-9._-]/g, '_')}"`;
}
