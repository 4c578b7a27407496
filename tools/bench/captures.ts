/** Duka's answers as the reference server replays them. */

export interface CapturedResponse {
  status: number;
  /** Header name and value pairs as Duka sent them, less those node:http sets itself. */
  headers: [string, string][];
  bodyBase64: string;
}

/** Captures by request line, "GET /api/products?pageNumber=1". */
export type Captures = Record<string, CapturedResponse>;

/** Headers node:http writes on its own (connection handling, framing, date). */
export const HOP_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding', 'date']);
