-- source: https://github.com/world-federation-of-advertisers/cross-media-measurement/blob/051396c97ed2b9b80e16b69d1eedc309d4096184/src/main/resources/kingdom/spanner/shard-measurements-by-continuation-token.sql
-- liquibase formatted sql

-- Copyright 2024 The Cross-Media Measurement Authors
--
-- Licensed under the Apache License, Version 2.0 (the "License");
-- you may not use this file except in compliance with the License.
-- You may obtain a copy of the License at
--
--     http://www.apache.org/licenses/LICENSE-2.0
--
-- Unless required by applicable law or agreed to in writing, software
-- distributed under the License is distributed on an "AS IS" BASIS,
-- WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
-- See the License for the specific language governing permissions and
-- limitations under the License.

-- changeset sanjayvas:21 dbms:cloudspanner
-- comment: Shard the MeasurementsByContinuationToken index to avoid hotspotting.

START BATCH DDL;

ALTER TABLE Measurements
ADD COLUMN MeasurementIndexShardId INT64 NOT NULL AS (
  ABS(MOD(FARM_FINGERPRINT(CAST(MeasurementId AS STRING)), 64))
) STORED;

DROP INDEX MeasurementsByContinuationToken;

CREATE INDEX MeasurementsByContinuationToken ON Measurements(
  MeasurementIndexShardId,
  UpdateTime,
  ExternalComputationId,
  State
);

RUN BATCH;

