/**
 * Money is held in integer cents wherever it is computed, so sums never drift; the API and the
 * screens show Ksh as numbers with two decimals, as the specification's shapes require.
 */

export type Cents = number;

export function toCents(ksh: number): Cents {
  return Math.round(ksh * 100);
}

export function fromCents(cents: Cents): number {
  return cents / 100;
}

/**
 * Made once: `toLocaleString` with options builds a new formatter on every call, and a product
 * page's first render spent about 100 ms of a 4× slowed CPU doing that.
 */
const kshFormat = new Intl.NumberFormat('en-KE', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** "Ksh. 1,234.50" — the currency label (docs/product-rules.md, Constants) with two decimals and thousands separators. */
export function formatKsh(ksh: number): string {
  return `Ksh. ${kshFormat.format(ksh)}`;
}

/** Two decimals without the label, for line totals and subtotals. */
export function twoDecimals(ksh: number): string {
  return (Math.round(ksh * 100) / 100).toFixed(2);
}
