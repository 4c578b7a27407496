CREATE INDEX "orders_paid_latest_idx" ON "orders" USING btree ("is_paid","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "orders_delivery_latest_idx" ON "orders" USING btree ("is_delivered","is_paid","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "orders_id_prefix_idx" ON "orders" USING btree (("id"::text) text_pattern_ops);--> statement-breakpoint
CREATE INDEX "orders_phone_trgm_idx" ON "orders" USING gin ("phone_number" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "users_name_trgm_idx" ON "users" USING gin (lower("name") gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "users_email_trgm_idx" ON "users" USING gin ("email" gin_trgm_ops);