-- The order lists read ORDER BY created_at DESC, id DESC, whose nulls come first (PostgreSQL's
-- default for DESC). These indexes had NULLS LAST and no id, so they could not give rows in that
-- order and every page sorted all the matching orders; now a page is read off the index.
DROP INDEX "orders_latest_idx";--> statement-breakpoint
DROP INDEX "orders_paid_latest_idx";--> statement-breakpoint
DROP INDEX "orders_delivery_latest_idx";--> statement-breakpoint
CREATE INDEX "orders_latest_idx" ON "orders" USING btree ("created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "orders_paid_latest_idx" ON "orders" USING btree ("is_paid","created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "orders_delivery_latest_idx" ON "orders" USING btree ("is_delivered","is_paid","created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);