-- source: https://github.com/world-federation-of-advertisers/cross-media-measurement/blob/a191453afb6030b2a75874529c84acea253717ff/src/main/resources/kingdom/spanner/reorder-measurements-by-continuation-token.sql
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

-- changeset sanjayvas:15 dbms:cloudspanner
-- comment: Reorder columns in MeasurementsByContinuationToken index.

DROP INDEX MeasurementsByContinuationToken;

CREATE INDEX MeasurementsByContinuationToken ON
  Measurements(UpdateTime, ExternalComputationId, State);
