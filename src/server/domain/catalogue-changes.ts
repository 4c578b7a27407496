/**
 * What a committed write changed of the catalogue that shoppers see. Every domain write that can
 * change a catalogue answer (a product, its stock, its rating or reviews) reports it here after
 * its transaction has committed and before it returns, so the report can never come from a write
 * that failed or was refused, and no caller (a route, a job, the CLI) can forget it.
 */
export interface CatalogueChange {
  /** The products whose own answers changed: price, stock, rating, reviews, anything shown of them. */
  products: readonly string[];
  /**
   * True when lists may change: which products a listing page, a search or the top products show,
   * in what order, or how many there are (a product created, edited or deleted, a rating changed).
   */
  listing: boolean;
  /** Everything may have changed: the whole catalogue was replaced (an import). */
  everything?: boolean;
  /**
   * The shop's settings changed (docs/settings.md). They travel in the same feed as the
   * catalogue's changes, so every instance learns of them the way it learns of a price change.
   */
  settings?: boolean;
}

export interface CatalogueChanges {
  /** Call only after the write's transaction has committed. */
  committed(change: CatalogueChange): Promise<void>;
}
