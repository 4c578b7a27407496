CREATE TABLE "catalog_change_head" (
	"id" smallint PRIMARY KEY DEFAULT 1 NOT NULL,
	"seq" bigint DEFAULT 0 NOT NULL,
	"epoch" uuid DEFAULT gen_random_uuid() NOT NULL,
	CONSTRAINT "catalog_change_head_single_row" CHECK ("catalog_change_head"."id" = 1)
);
--> statement-breakpoint
CREATE TABLE "catalog_changes" (
	"seq" bigint PRIMARY KEY NOT NULL,
	"change" text NOT NULL
);
--> statement-breakpoint
DROP SEQUENCE "public"."catalog_version";
--> statement-breakpoint
-- The feed starts empty; instances read from here on.
INSERT INTO "catalog_change_head" ("id") VALUES (1);