CREATE TABLE "mpesa_refunds" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"payment_id" uuid NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"previous_status" text NOT NULL,
	"previous_exception" text,
	"amount_cents" integer NOT NULL,
	"requested_by" uuid,
	"originator_conversation_id" text,
	"conversation_id" text,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_sent_at" timestamp with time zone,
	"queue_timeout_at" timestamp with time zone,
	"reversal_receipt" text,
	"result_code" text,
	"failure_reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone,
	"failed_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "mpesa_refunds_amount_positive" CHECK ("mpesa_refunds"."amount_cents" > 0)
);
--> statement-breakpoint
ALTER TABLE "mpesa_callbacks" ADD COLUMN "subject_id" uuid;--> statement-breakpoint
ALTER TABLE "mpesa_payments" ADD COLUMN "receipt_lookups" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "mpesa_payments" ADD COLUMN "receipt_lookup_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "mpesa_refunds" ADD CONSTRAINT "mpesa_refunds_payment_id_mpesa_payments_id_fk" FOREIGN KEY ("payment_id") REFERENCES "public"."mpesa_payments"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mpesa_refunds" ADD CONSTRAINT "mpesa_refunds_requested_by_users_id_fk" FOREIGN KEY ("requested_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "mpesa_refunds_one_live_key" ON "mpesa_refunds" USING btree ("payment_id") WHERE "mpesa_refunds"."status" in ('pending', 'unanswered', 'refunded');--> statement-breakpoint
CREATE INDEX "mpesa_refunds_payment_idx" ON "mpesa_refunds" USING btree ("payment_id","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "mpesa_refunds_pending_idx" ON "mpesa_refunds" USING btree ("last_sent_at") WHERE "mpesa_refunds"."status" = 'pending';