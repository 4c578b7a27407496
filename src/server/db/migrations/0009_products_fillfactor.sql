-- An order changes a product's stock and nothing indexed. With free room on the row's page the
-- new version stays on it (a HOT update), so none of the product's indexes is touched, the three
-- GIN search indexes included. Full pages (fillfactor 100) made every stock change an insert into
-- all six indexes. Pages written from now on keep 10 % free; existing ones gain it when rewritten.
ALTER TABLE "products" SET (fillfactor = 90);
