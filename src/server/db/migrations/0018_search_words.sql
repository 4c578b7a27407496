CREATE TABLE "search_words" (
	"word" text PRIMARY KEY NOT NULL,
	"products" integer NOT NULL
);
--> statement-breakpoint
DROP INDEX "products_search_name_trgm_idx";--> statement-breakpoint
CREATE INDEX "search_words_trgm_idx" ON "search_words" USING gin ("word" gin_trgm_ops);--> statement-breakpoint
ALTER TABLE "products" DROP COLUMN "search_name";--> statement-breakpoint
-- The words of a product as search_words counts them: those of its name and of its category, as
-- the name and category parts (weights A and B) of search_vector hold them.
CREATE FUNCTION product_search_words(name text, category text) RETURNS text[] LANGUAGE sql IMMUTABLE AS $$
  SELECT tsvector_to_array(to_tsvector('simple'::regconfig, name) || to_tsvector('simple'::regconfig, category))
$$;--> statement-breakpoint
INSERT INTO "search_words" ("word", "products")
  SELECT word, count(*)::int FROM "products" p, unnest(product_search_words(p.name, p.category)) AS word GROUP BY word;--> statement-breakpoint
-- Counts change in the transaction of the write, and a word no product holds any more goes, so a
-- search never offers a word no product has. Words are added in order, so two writers sharing
-- words wait for each other rather than deadlock.
CREATE FUNCTION search_words_products_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO search_words AS w (word, products)
    SELECT word, count(*)::int FROM added_products p, unnest(product_search_words(p.name, p.category)) AS word
     GROUP BY word ORDER BY word
  ON CONFLICT (word) DO UPDATE SET products = w.products + excluded.products;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE FUNCTION search_words_products_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE search_words w SET products = w.products - gone.n
    FROM (SELECT word, count(*)::int AS n FROM removed_products p, unnest(product_search_words(p.name, p.category)) AS word
           GROUP BY word ORDER BY word) AS gone
   WHERE w.word = gone.word;
  DELETE FROM search_words WHERE products <= 0;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE FUNCTION search_words_product_renamed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE search_words SET products = products - 1 WHERE word = ANY (product_search_words(OLD.name, OLD.category));
  DELETE FROM search_words WHERE word = ANY (product_search_words(OLD.name, OLD.category)) AND products <= 0;
  INSERT INTO search_words AS w (word, products)
    SELECT word, 1 FROM unnest(product_search_words(NEW.name, NEW.category)) AS word ORDER BY word
  ON CONFLICT (word) DO UPDATE SET products = w.products + 1;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE FUNCTION search_words_products_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM search_words;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER search_words_on_insert AFTER INSERT ON products
  REFERENCING NEW TABLE AS added_products FOR EACH STATEMENT EXECUTE FUNCTION search_words_products_added();--> statement-breakpoint
CREATE TRIGGER search_words_on_delete AFTER DELETE ON products
  REFERENCING OLD TABLE AS removed_products FOR EACH STATEMENT EXECUTE FUNCTION search_words_products_removed();--> statement-breakpoint
-- Only a change of name or category: an order's stock update never fires it.
CREATE TRIGGER search_words_on_rename AFTER UPDATE OF name, category ON products FOR EACH ROW
  WHEN (OLD.name IS DISTINCT FROM NEW.name OR OLD.category IS DISTINCT FROM NEW.category)
  EXECUTE FUNCTION search_words_product_renamed();--> statement-breakpoint
CREATE TRIGGER search_words_on_truncate AFTER TRUNCATE ON products
  FOR EACH STATEMENT EXECUTE FUNCTION search_words_products_truncated();
