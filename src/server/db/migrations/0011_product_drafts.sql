ALTER TABLE "products" ADD COLUMN "is_draft" boolean DEFAULT false NOT NULL;--> statement-breakpoint
-- The storefront's product count leaves drafts out. Every product before this migration is
-- published, so the count so far stays right; from here on the triggers count only published ones.
CREATE OR REPLACE FUNCTION catalog_stats_products_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE catalog_stats SET product_count = product_count + (SELECT count(*) FROM added_products WHERE NOT is_draft);
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION catalog_stats_products_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE catalog_stats SET product_count = product_count - (SELECT count(*) FROM removed_products WHERE NOT is_draft);
  RETURN NULL;
END $$;--> statement-breakpoint
-- Publishing a draft counts it. Only a change in the count writes the row, so the stock updates of
-- orders never wait on each other for it.
CREATE FUNCTION catalog_stats_products_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  delta integer;
BEGIN
  delta := (SELECT count(*) FROM changed_products_after WHERE NOT is_draft)
         - (SELECT count(*) FROM changed_products_before WHERE NOT is_draft);
  IF delta <> 0 THEN
    UPDATE catalog_stats SET product_count = product_count + delta;
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER products_counted_on_update AFTER UPDATE ON products
  REFERENCING OLD TABLE AS changed_products_before NEW TABLE AS changed_products_after
  FOR EACH STATEMENT EXECUTE FUNCTION catalog_stats_products_changed();
