CREATE TABLE "mpesa_callbacks" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"kind" text NOT NULL,
	"body" text NOT NULL,
	"remote_ip" text,
	"outcome" text,
	"processed_at" timestamp with time zone,
	"attempts" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "mpesa_payments" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"receipt" text,
	"amount_cents" integer NOT NULL,
	"phone" text,
	"source" text NOT NULL,
	"order_id" uuid,
	"checkout_request_id" text,
	"status" text NOT NULL,
	"exception" text,
	"note" text,
	"raw" text,
	"transaction_at" timestamp with time zone,
	"recorded_by" uuid,
	"notified_at" timestamp with time zone,
	"resolved_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "mpesa_payments_amount_positive" CHECK ("mpesa_payments"."amount_cents" > 0)
);
--> statement-breakpoint
ALTER TABLE "mpesa_payments" ADD CONSTRAINT "mpesa_payments_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mpesa_payments" ADD CONSTRAINT "mpesa_payments_recorded_by_users_id_fk" FOREIGN KEY ("recorded_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "mpesa_callbacks_unprocessed_idx" ON "mpesa_callbacks" USING btree ("created_at") WHERE "mpesa_callbacks"."processed_at" is null;--> statement-breakpoint
CREATE UNIQUE INDEX "mpesa_payments_receipt_key" ON "mpesa_payments" USING btree ("receipt");--> statement-breakpoint
CREATE UNIQUE INDEX "mpesa_payments_checkout_key" ON "mpesa_payments" USING btree ("checkout_request_id");--> statement-breakpoint
CREATE INDEX "mpesa_payments_order_idx" ON "mpesa_payments" USING btree ("order_id");--> statement-breakpoint
CREATE INDEX "mpesa_payments_latest_idx" ON "mpesa_payments" USING btree ("created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "mpesa_payments_open_idx" ON "mpesa_payments" USING btree ("created_at" DESC NULLS LAST) WHERE "mpesa_payments"."exception" is not null and "mpesa_payments"."status" in ('exception', 'credited');--> statement-breakpoint
-- Payments settled before the ledger existed become its first rows: a prompt paid with a receipt
-- credited its order; one paid by the status query alone still waits for its receipt.
INSERT INTO "mpesa_payments" ("receipt", "amount_cents", "phone", "source", "order_id", "checkout_request_id", "status", "exception", "transaction_at", "notified_at", "created_at")
SELECT upper(trim("mpesa_receipt")), "amount" * 100, "phone",
       CASE WHEN "settled_by" = 'query' THEN 'stk_query' ELSE 'stk_callback' END,
       "order_id", "checkout_request_id", 'credited',
       CASE WHEN "mpesa_receipt" IS NULL THEN 'receipt_missing' END,
       "transaction_date", "updated_at", "updated_at"
FROM "payment_attempts" WHERE "status" = 'paid';
