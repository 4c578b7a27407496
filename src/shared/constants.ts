/** Business constants of docs/product-rules.md (Constants), shared by the server and the web client. */

/** The shop's name until the merchant sets another (docs/settings.md). */
export const SHOP_NAME = 'Duka';
export const CURRENCY_LABEL = 'Ksh.';
export const PAYMENT_METHOD = 'MPESA';

/** Products per listing page: 12 fills the 4/3/2-per-row grid evenly. */
export const PRODUCTS_PAGE_SIZE = 12;

/**
 * A search ranks at most this many of its best candidates: a broad keyword over a large catalogue
 * costs what a narrow one does. Past it, the count is shown as "1,000+".
 */
export const SEARCH_RESULTS_CAP = 1000;

/** How many products the top-rated carousel shows. */
export const TOP_PRODUCTS_COUNT = 3;

export const PASSWORD_MIN_LENGTH = 8;
/** Long enough for any passphrase, short enough that hashing cannot be used as a denial of service. */
export const PASSWORD_MAX_LENGTH = 128;

export const MAX_UPLOAD_BYTES = 5 * 1024 * 1024;
export const MAX_ORDER_LINES = 100;
export const MAX_LINE_QTY = 1000;

/** Rows per page of the admin's order and user lists when they are paged. */
export const ADMIN_LIST_PAGE_SIZE = 20;
