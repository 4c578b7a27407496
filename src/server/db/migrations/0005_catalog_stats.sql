CREATE SEQUENCE "public"."catalog_version" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1;--> statement-breakpoint
CREATE TABLE "catalog_stats" (
	"id" smallint PRIMARY KEY DEFAULT 1 NOT NULL,
	"product_count" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "catalog_stats_single_row" CHECK ("catalog_stats"."id" = 1)
);
--> statement-breakpoint
-- The count starts from what the shop already has; from here on the triggers keep it exact,
-- inside the same transaction as the insert or delete that changed it.
INSERT INTO "catalog_stats" ("id", "product_count") SELECT 1, count(*)::int FROM "products";--> statement-breakpoint
CREATE FUNCTION catalog_stats_products_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE catalog_stats SET product_count = product_count + (SELECT count(*) FROM added_products);
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE FUNCTION catalog_stats_products_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE catalog_stats SET product_count = product_count - (SELECT count(*) FROM removed_products);
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE FUNCTION catalog_stats_products_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE catalog_stats SET product_count = 0;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER products_counted_on_insert AFTER INSERT ON products
  REFERENCING NEW TABLE AS added_products FOR EACH STATEMENT EXECUTE FUNCTION catalog_stats_products_added();--> statement-breakpoint
CREATE TRIGGER products_counted_on_delete AFTER DELETE ON products
  REFERENCING OLD TABLE AS removed_products FOR EACH STATEMENT EXECUTE FUNCTION catalog_stats_products_removed();--> statement-breakpoint
CREATE TRIGGER products_counted_on_truncate AFTER TRUNCATE ON products
  FOR EACH STATEMENT EXECUTE FUNCTION catalog_stats_products_truncated();
