-- source: https://github.com/GoogleCloudPlatform/DataflowTemplates/blob/41c7fbb9c9ebdb2d438420610a896329fe7ed005/v1/src/test/resources/CopyDbIT-AllSchemaAndData-pg.sql (an excerpt, unedited: its named schema, lines 1-17, two uuid-keyed tables, lines 66-73, and its table without a key, lines 148-151)
CREATE SCHEMA "my_schema";

CREATE SEQUENCE my_schema."MySequence" BIT_REVERSED_POSITIVE;

CREATE TABLE my_schema."MyTable" (
	"id"                                    bigint NOT NULL,
	"data"                                  text,
	PRIMARY KEY ("id")
);

CREATE INDEX "my_schema_MyTable_data_idx" ON my_schema."MyTable"("data");

CREATE VIEW my_schema."MyView" SQL SECURITY INVOKER AS SELECT t.id FROM my_schema."MyTable" t;

ALTER TABLE my_schema."MyTable" ADD COLUMN "tokens" spanner.tokenlist HIDDEN GENERATED ALWAYS AS (spanner.tokenize_substring("data")) STORED;

CREATE SEARCH INDEX "MySearchIdx" ON my_schema."MyTable"("tokens");

CREATE TABLE "PK_Uuid" ( "key" uuid, "val" bigint, PRIMARY KEY ("key") );

-- Generated and Identity Primary Keys
CREATE TABLE "PK_AutoUuid" (
	"id" uuid DEFAULT gen_random_uuid(),
	"val" bigint,
	PRIMARY KEY ("id")
);

-- Tables w/o PKs
CREATE TABLE "MyTable_NoPks" (
	"val" bigint
);
