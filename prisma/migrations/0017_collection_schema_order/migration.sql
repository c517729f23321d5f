-- A collection's schema keeps the order its author declared the properties in (json, not jsonb:
-- jsonb reorders keys by length and bytes). The order is what a reader sees in the definition and
-- what CSV exports and the dashboard's columns follow after `position`. Schemas saved before
-- this migration keep the order jsonb gave them. Writers compare schemas as jsonb (semantic).
ALTER TABLE collections ALTER COLUMN schema TYPE json USING schema::json;
