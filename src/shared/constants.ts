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

/**
 * POST /api/orders takes an optional Idempotency-Key header: the same key from the same shopper
 * answers the order it already placed. The web app sends one per checkout; nginx sends its request
 * id when the client did not, so its retry of a POST on the other instance never orders twice.
 */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/**
 * Low stock: a product with this many units or fewer is listed on the admin dashboard. The default
 * until the shop's settings give each shop its own threshold.
 */
export const DEFAULT_LOW_STOCK_THRESHOLD = 5;

/** Days of the admin dashboard's sales chart, today included. */
export const DASHBOARD_CHART_DAYS = 30;

/** Low-stock products the dashboard names (it counts all of them). */
export const DASHBOARD_LOW_STOCK_SHOWN = 10;

/**
 * The orders a shopper may sort a listing by (`sort` of GET /api/products). Without one a listing
 * is newest first and a search best match first, as they always were.
 */
export const PRODUCT_SORTS = ['newest', 'price_asc', 'price_desc', 'rating'] as const;
export type ProductSort = (typeof PRODUCT_SORTS)[number];

/** A category name is at most this long (the admin's edit form allows no longer). */
export const CATEGORY_MAX_LENGTH = 100;
