-- Writes to products keep two derived tables in the write's own transaction: catalog_stats (one
-- row) and search_words. Concurrent admins deadlocked on them: a create takes catalog_stats and
-- then search_words (statement triggers fire by name), an edit that publishes a renamed draft takes
-- them the other way round (row triggers fire first), and two edits sharing words take those words'
-- rows in whatever order their plans reach them. Every trigger about to write either table now
-- first takes one transaction lock, so those writes go one at a time. Readers never wait for it,
-- and an order's stock update, which changes neither table, never takes it.
CREATE FUNCTION lock_catalog_derived_tables() RETURNS void LANGUAGE sql AS $$
  -- A fixed key of the shop's own; the startup lock uses another.
  SELECT pg_advisory_xact_lock(724193002)
$$;--> statement-breakpoint
-- Adds `delta` published products to the count; no change (a draft created, an order's stock
-- update) writes nothing and waits for nothing.
CREATE FUNCTION catalog_stats_count(delta integer) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF delta <> 0 THEN
    PERFORM lock_catalog_derived_tables();
    UPDATE catalog_stats SET product_count = product_count + delta;
  END IF;
END $$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION catalog_stats_products_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM catalog_stats_count((SELECT count(*) FROM added_products WHERE NOT is_draft)::int);
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION catalog_stats_products_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM catalog_stats_count(-(SELECT count(*) FROM removed_products WHERE NOT is_draft)::int);
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION catalog_stats_products_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM catalog_stats_count(((SELECT count(*) FROM changed_products_after WHERE NOT is_draft)
                             - (SELECT count(*) FROM changed_products_before WHERE NOT is_draft))::int);
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION catalog_stats_products_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM lock_catalog_derived_tables();
  UPDATE catalog_stats SET product_count = 0;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION search_words_products_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM lock_catalog_derived_tables();
  INSERT INTO search_words AS w (word, products)
    SELECT word, count(*)::int FROM added_products p, unnest(product_search_words(p.name, p.category)) AS word
     GROUP BY word
  ON CONFLICT (word) DO UPDATE SET products = w.products + excluded.products;
  RETURN NULL;
END $$;--> statement-breakpoint
-- A word no product holds any more goes, so a search never offers a word no product has.
CREATE OR REPLACE FUNCTION search_words_products_removed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  gone text[];
BEGIN
  PERFORM lock_catalog_derived_tables();
  WITH counted AS (
    SELECT word, count(*)::int AS n FROM removed_products p, unnest(product_search_words(p.name, p.category)) AS word
     GROUP BY word
  ), lowered AS (
    UPDATE search_words w SET products = w.products - counted.n FROM counted WHERE w.word = counted.word
    RETURNING w.word, w.products
  )
  SELECT array_agg(word) INTO gone FROM lowered WHERE products <= 0;
  DELETE FROM search_words WHERE word = ANY (gone);
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION search_words_product_renamed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  old_words text[] := product_search_words(OLD.name, OLD.category);
BEGIN
  PERFORM lock_catalog_derived_tables();
  UPDATE search_words SET products = products - 1 WHERE word = ANY (old_words);
  DELETE FROM search_words WHERE word = ANY (old_words) AND products <= 0;
  INSERT INTO search_words AS w (word, products)
    SELECT word, 1 FROM unnest(product_search_words(NEW.name, NEW.category)) AS word
  ON CONFLICT (word) DO UPDATE SET products = w.products + 1;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION search_words_products_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM lock_catalog_derived_tables();
  DELETE FROM search_words;
  RETURN NULL;
END $$;
