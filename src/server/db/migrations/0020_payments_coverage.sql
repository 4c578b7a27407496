CREATE TABLE "mpesa_initiator_requests" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"kind" text NOT NULL,
	"subject_id" uuid NOT NULL,
	"originator_conversation_id" text NOT NULL,
	"conversation_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "mpesa_payments" DROP CONSTRAINT "mpesa_payments_amount_positive";--> statement-breakpoint
ALTER TABLE "mpesa_callbacks" ADD COLUMN "next_attempt_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "mpesa_payments" ADD COLUMN "recorded_amount_cents" integer;--> statement-breakpoint
ALTER TABLE "mpesa_payments" ADD COLUMN "detail" text;--> statement-breakpoint
CREATE INDEX "mpesa_initiator_requests_subject_idx" ON "mpesa_initiator_requests" USING btree ("subject_id","kind");--> statement-breakpoint
ALTER TABLE "mpesa_payments" ADD CONSTRAINT "mpesa_payments_amount_not_negative" CHECK ("mpesa_payments"."amount_cents" >= 0);--> statement-breakpoint
-- One rule from now on: an order is paid exactly when the money held for it (its payments not
-- refunded and not awaiting M-Pesa's confirmation) covers its total rounded up to the shilling.
-- An order marked paid by an admin before this rule has no payment: it gets the manual payment
-- without a receipt that "Mark As Paid" now records, already notified.
INSERT INTO "mpesa_payments" ("amount_cents", "source", "order_id", "status", "note", "notified_at")
SELECT ceil(o."total_cents" / 100.0)::integer * 100, 'manual', o."id", 'credited', 'Marked as paid by an admin, without an M-Pesa receipt', now()
FROM "orders" o
WHERE o."is_paid" AND NOT EXISTS (SELECT 1 FROM "mpesa_payments" p WHERE p."order_id" = o."id");
--> statement-breakpoint
UPDATE "orders" o SET "is_paid" = covered, "paid_at" = CASE WHEN covered THEN coalesce(o."paid_at", now()) END,
  "mpesa_receipt" = CASE WHEN covered THEN o."mpesa_receipt" END, "updated_at" = now()
FROM (
  SELECT o2."id", coalesce(sum(p."amount_cents") FILTER (
      WHERE p."status" <> 'refunded' AND p."exception" IS DISTINCT FROM 'unconfirmed'), 0)
    >= ceil(o2."total_cents" / 100.0)::integer * 100 AS covered
  FROM "orders" o2 LEFT JOIN "mpesa_payments" p ON p."order_id" = o2."id"
  GROUP BY o2."id"
) c
WHERE c."id" = o."id" AND o."is_paid" IS DISTINCT FROM c.covered;
