-- source: https://github.com/world-federation-of-advertisers/cross-media-measurement/blob/55bce4c187349a1b87f21d41434f78216a2a8b80/src/main/resources/kingdom/spanner/create-measurements-by-update-time-index.sql
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

-- changeset tristanvuong2021:18 dbms:cloudspanner
-- comment: Create index for ordering Measurements by UpdateTime.

CREATE INDEX MeasurementsByUpdateTime ON Measurements(UpdateTime);
