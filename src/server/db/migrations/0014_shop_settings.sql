CREATE TABLE "shop_settings" (
	"id" smallint PRIMARY KEY DEFAULT 1 NOT NULL,
	"shop_name" text DEFAULT 'Duka' NOT NULL,
	"contact_phone" text DEFAULT '' NOT NULL,
	"contact_email" text DEFAULT '' NOT NULL,
	"tax_basis_points" integer DEFAULT 1500 NOT NULL,
	"shipping_fee_cents" integer DEFAULT 10000 NOT NULL,
	"free_shipping_threshold_cents" integer DEFAULT 500000 NOT NULL,
	"low_stock_threshold" integer DEFAULT 5 NOT NULL,
	"alert_email" text DEFAULT '' NOT NULL,
	"alert_on_unpaid_orders" boolean DEFAULT false NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "shop_settings_single_row" CHECK ("shop_settings"."id" = 1),
	CONSTRAINT "shop_settings_tax_range" CHECK ("shop_settings"."tax_basis_points" BETWEEN 0 AND 10000),
	CONSTRAINT "shop_settings_money_not_negative" CHECK ("shop_settings"."shipping_fee_cents" >= 0 AND "shop_settings"."free_shipping_threshold_cents" >= 0),
	CONSTRAINT "shop_settings_low_stock_not_negative" CHECK ("shop_settings"."low_stock_threshold" >= 0)
);
