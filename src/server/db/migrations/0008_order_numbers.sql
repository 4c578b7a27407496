ALTER TABLE "orders" ADD COLUMN "number" text;--> statement-breakpoint
-- Orders placed before numbers existed get one now: 8 characters from the alphabet of
-- src/shared/order-number.ts (no 0/O or 1/I), drawn again for the rare duplicate.
DO $$
BEGIN
  LOOP
    UPDATE "orders" SET "number" = (
      SELECT string_agg(substr('23456789ABCDEFGHJKLMNPQRSTUVWXYZ', 1 + floor(random() * 32)::int, 1), '')
      FROM generate_series(1, 8)
      -- Refers to the row, so that every row draws its own number.
      WHERE "orders"."id" IS NOT NULL
    )
    WHERE "number" IS NULL
       OR "id" IN (
         SELECT "id" FROM (
           SELECT "id", row_number() OVER (PARTITION BY "number" ORDER BY "created_at", "id") AS "nth" FROM "orders"
         ) AS "numbered" WHERE "nth" > 1
       );
    EXIT WHEN NOT EXISTS (SELECT 1 FROM "orders" WHERE "number" IS NULL)
      AND NOT EXISTS (SELECT 1 FROM "orders" GROUP BY "number" HAVING count(*) > 1);
  END LOOP;
END $$;--> statement-breakpoint
ALTER TABLE "orders" ALTER COLUMN "number" SET NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "orders_number_idx" ON "orders" USING btree ("number");
