CREATE TABLE "images" (
	"path" text NOT NULL,
	"width" integer NOT NULL,
	"content_type" text NOT NULL,
	"content" "bytea" NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "images_path_width_pk" PRIMARY KEY("path","width"),
	CONSTRAINT "images_width_not_negative" CHECK ("images"."width" >= 0)
);
--> statement-breakpoint
-- WebP does not compress further: store it out of line without trying (saves CPU on every write).
ALTER TABLE "images" ALTER COLUMN "content" SET STORAGE EXTERNAL;