-- Trigram matching powers the typo-tolerant product search (drizzle-kit does not emit extensions).
CREATE EXTENSION IF NOT EXISTS pg_trgm;
