-- source: https://github.com/GoogleCloudPlatform/DataflowTemplates/blob/2598d712653b3a1b0239a112e3793bd86b981f49/v1/src/test/resources/CopyDbIT-AllSchemaAndData-gsql.sql (an excerpt, unedited: its named schema, lines 6-24, and three of its key-type tables, lines 78-85)
CREATE SCHEMA `my_schema`;

CREATE SEQUENCE `my_schema`.`MySequence` OPTIONS (sequence_kind = 'bit_reversed_positive');

CREATE TABLE `my_schema`.`MyTable` (
	`id`                                    INT64 NOT NULL,
	`data`                                  STRING(MAX),
) PRIMARY KEY (`id` ASC);

CREATE INDEX `my_schema`.`MyTable_data_idx` ON `my_schema`.`MyTable`(`data` ASC);

CREATE VIEW `my_schema`.`MyView` SQL SECURITY INVOKER AS SELECT t.id FROM `my_schema`.`MyTable` t;

ALTER TABLE `my_schema`.`MyTable` ADD COLUMN `tokens` TOKENLIST AS (TOKENIZE_SUBSTRING(data)) HIDDEN;

CREATE PROPERTY GRAPH `my_schema`.`MyGraph`
  NODE TABLES (`my_schema`.`MyTable`);

CREATE SEARCH INDEX `my_schema`.`MySearchIdx` ON `my_schema`.`MyTable`(`tokens`);

CREATE TABLE `PK_Timestamp` ( `key` TIMESTAMP, `val` INT64 ) PRIMARY KEY (`key` ASC);
CREATE TABLE `PK_Uuid` ( `key` UUID, `val` INT64 ) PRIMARY KEY (`key` ASC);

-- Generated and Identity Primary Keys
CREATE TABLE `PK_AutoUuid` (
	`id` UUID DEFAULT (NEW_UUID()),
	`val` INT64
) PRIMARY KEY (`id` ASC);
