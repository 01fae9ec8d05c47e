-- source: https://github.com/GoogleChrome/webstatus.dev/blob/main/infra/storage/spanner/migrations
-- file: infra/storage/spanner/migrations/000001.sql
-- Copyright 2024 Google LLC
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

-- WebFeatures contains basic metadata about web features
CREATE TABLE IF NOT EXISTS WebFeatures (
    ID STRING(36) NOT NULL DEFAULT (GENERATE_UUID()),
    FeatureKey STRING(64) NOT NULL, -- From web features repo.
    Name STRING(64) NOT NULL,
    -- Additional lowercase columns for case-insensitive search
    FeatureKey_Lowercase STRING(64) AS (LOWER(FeatureKey)) STORED,
    Name_Lowercase STRING(64) AS (LOWER(Name)) STORED,
) PRIMARY KEY (ID);

-- Used to enforce that only one FeatureKey from web features can exist.
CREATE UNIQUE NULL_FILTERED INDEX WebFeaturesByFeatureID ON WebFeatures (FeatureKey);

-- Index on FeatureKey and Name for case-insensitive search
CREATE INDEX IDX_FEATUREID_LOWER ON WebFeatures(FeatureKey_Lowercase);
CREATE INDEX IDX_NAME_LOWER ON WebFeatures(Name_Lowercase);

-- WPTRuns contains metadata from wpt.fyi runs.
-- More information: https://github.com/web-platform-tests/wpt.fyi/blob/main/api/README.md#apiruns
CREATE TABLE IF NOT EXISTS WPTRuns (
    ID STRING(36) NOT NULL DEFAULT (GENERATE_UUID()),
    ExternalRunID INT64 NOT NULL, -- ID from WPT
    TimeStart TIMESTAMP NOT NULL,
    TimeEnd TIMESTAMP NOT NULL,
    BrowserName STRING(64) NOT NULL,
    BrowserVersion STRING(32) NOT NULL, -- From wpt.fyi. Contains major.minor.patch and more.
    Channel STRING(32) NOT NULL,
    OSName STRING(64),
    OSVersion STRING(32),
    FullRevisionHash STRING(40),
) PRIMARY KEY (ID);


-- Used to enforce that only one ExternalRunID from wpt.fyi can exist.
CREATE UNIQUE NULL_FILTERED INDEX RunsByExternalRunID ON WPTRuns (ExternalRunID);

-- Useful index for the runs for feature search query.
CREATE INDEX RunsForFeatureSearchWithChannel ON WPTRuns(ExternalRunID, Channel, TimeStart DESC, BrowserName);

-- Useful index for feature search. Used to get the latest runs beforehand.
CREATE INDEX LatestRunsByBrowserChannel ON WPTRuns (BrowserName, Channel, TimeStart DESC);


-- WPTRunFeatureMetrics contains metrics for individual features for a given run.
CREATE TABLE IF NOT EXISTS WPTRunFeatureMetrics (
    ID STRING(36) NOT NULL,
    WebFeatureID STRING(36) NOT NULL,
    TotalTests INT64,
    TestPass INT64,
    TestPassRate NUMERIC,
    TotalSubtests INT64,
    SubtestPass INT64,
    SubtestPassRate NUMERIC,
    -- Denormalized data from WPTRuns. This helps with aggregations over time.
    Channel STRING(32) NOT NULL,
    BrowserName STRING(64) NOT NULL,
    TimeStart TIMESTAMP NOT NULL,
    -- End denormalized data.
    CONSTRAINT FK_WPTRunFeatureMetricsWebFeatureID FOREIGN KEY (WebFeatureID) REFERENCES WebFeatures(ID) ON DELETE CASCADE,
    FOREIGN KEY (ID) REFERENCES WPTRuns(ID)
) PRIMARY KEY (ID, WebFeatureID)
,    INTERLEAVE IN PARENT WPTRuns ON DELETE CASCADE;

-- Used to enforce that only one combination of ID and WebFeatureID can exist.
CREATE UNIQUE NULL_FILTERED INDEX MetricsByRunIDAndFeature ON WPTRunFeatureMetrics (ID, WebFeatureID);

-- Used to help with metrics aggregation calculations.
CREATE INDEX MetricsFeatureChannelBrowserTime ON
  WPTRunFeatureMetrics(WebFeatureID, Channel, BrowserName, TimeStart DESC);

CREATE INDEX MetricsFeatureChannelBrowserTimeTestPassRate ON WPTRunFeatureMetrics(WebFeatureID, Channel, BrowserName, TimeStart DESC, TestPassRate);
CREATE INDEX MetricsFeatureChannelBrowserTimeSubtestPassRate ON WPTRunFeatureMetrics(WebFeatureID, Channel, BrowserName, TimeStart DESC, SubtestPassRate);


-- BrowserReleases contains information regarding browser releases.
-- Information from https://github.com/mdn/browser-compat-data/tree/main/browsers
CREATE TABLE IF NOT EXISTS BrowserReleases (
    BrowserName STRING(64) NOT NULL, -- From BCD not wpt.fyi.
    BrowserVersion STRING(8) NOT NULL, -- From BCD not wpt.fyi. Only contains major number.
    ReleaseDate TIMESTAMP NOT NULL,
) PRIMARY KEY (BrowserName, BrowserVersion);


-- BrowserFeatureAvailabilities contains information when a browser is available for a feature.
-- Information from https://github.com/mdn/browser-compat-data/tree/main/browsers
CREATE TABLE IF NOT EXISTS BrowserFeatureAvailabilities (
    BrowserName STRING(64) NOT NULL, -- From BCD not wpt.fyi.
    BrowserVersion STRING(8) NOT NULL, -- From BCD not wpt.fyi. Only contains major number.
    WebFeatureID STRING(36) NOT NULL, -- From web features table.
    CONSTRAINT FK_BrowserFeatureAvailabilitiesWebFeatureID FOREIGN KEY (WebFeatureID) REFERENCES WebFeatures(ID) ON DELETE CASCADE,
    FOREIGN KEY (BrowserName, BrowserVersion) REFERENCES BrowserReleases(BrowserName, BrowserVersion),
) PRIMARY KEY (WebFeatureID, BrowserName);

-- Used to enforce that only one combination of WebFeatureID and BrowserName can exist.
CREATE UNIQUE INDEX UniqueFeatureBrowser ON BrowserFeatureAvailabilities (WebFeatureID, BrowserName);


-- FeatureBaselineStatus contains information about the current baseline status of a feature.
CREATE TABLE IF NOT EXISTS FeatureBaselineStatus (
    WebFeatureID STRING(36) NOT NULL, -- From web features table.
    Status STRING(16),
    LowDate TIMESTAMP,
    HighDate TIMESTAMP,
    CONSTRAINT FK_FeatureBaselineStatusWebFeatureID FOREIGN KEY (WebFeatureID) REFERENCES WebFeatures(ID) ON DELETE CASCADE,
    -- Options come from https://github.com/web-platform-dx/web-features/blob/3d4d066c47c9f07514bf743b3955572a6073ff1e/packages/web-features/README.md?plain=1#L17-L24
    CHECK (Status IN ('none', 'low', 'high'))
) PRIMARY KEY (WebFeatureID);

-- Index to accelerate lookups and joins in FeatureBaselineStatus based on WebFeatureID.
-- Primarily supports queries involving the WebFeatures table.
CREATE INDEX IDX_FBS_FEATUREID ON FeatureBaselineStatus(WebFeatureID);
-- file: infra/storage/spanner/migrations/000002.sql
-- Copyright 2024 Google LLC
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

-- ExcludedFeatureKeys contains a list of feature keys that we should exclude
-- from queries. These feature keys can be current feature keys or future feature keys.
-- We use the FeatureKey instead of ID from WebFeatures so that admins
-- can easily add the features into the table in GCP without looking up the UUID.
CREATE TABLE IF NOT EXISTS ExcludedFeatureKeys (
    FeatureKey STRING(64) NOT NULL, -- From web features repo.
) PRIMARY KEY (FeatureKey);
-- file: infra/storage/spanner/migrations/000003.sql
-- Copyright 2024 Google LLC
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

-- FeatureSpecs contains spec information for a web feature.
CREATE TABLE IF NOT EXISTS FeatureSpecs (
    WebFeatureID STRING(36) NOT NULL,
    Links ARRAY<STRING(128)>,
    CONSTRAINT FK_FeatureSpecsWebFeatureID FOREIGN KEY (WebFeatureID) REFERENCES WebFeatures(ID) ON DELETE CASCADE,
) PRIMARY KEY (WebFeatureID);
-- file: infra/storage/spanner/migrations/000004.sql
-- Copyright 2024 Google LLC
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

-- Add details that only apply to a feature within a given run.
ALTER TABLE WPTRunFeatureMetrics ADD COLUMN FeatureRunDetails JSON;
-- file: infra/storage/spanner/migrations/000005.sql
-- Copyright 2024 Google LLC
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

-- LatestWPTRunFeatureMetrics contains latest snapshot of WPT metric information for a web feature.
CREATE TABLE IF NOT EXISTS LatestWPTRunFeatureMetrics (
    ID STRING(36) NOT NULL,
    WebFeatureID STRING(36) NOT NULL,
    BrowserName STRING(64) NOT NULL,
    Channel STRING(32) NOT NULL,
    FOREIGN KEY (ID, WebFeatureID) REFERENCES WPTRunFeatureMetrics(ID, WebFeatureID) ON DELETE CASCADE
) PRIMARY KEY (WebFeatureID, BrowserName, Channel);
-- file: infra/storage/spanner/migrations/000006.sql
-- Copyright 2024 Google LLC
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

-- WebDXGroups contains basic metadata about groups from the webdx web features repository.
-- Named WebDXGroups because Groups is a reserved word.
CREATE TABLE IF NOT EXISTS WebDXGroups (
    ID STRING(36) NOT NULL DEFAULT (GENERATE_UUID()),
    GroupKey STRING(64) NOT NULL,
    Name STRING(64) NOT NULL,

    -- Additional lowercase columns for case-insensitive search
    GroupKey_Lowercase STRING(64) AS (LOWER(GroupKey)) STORED,
    Name_Lowercase STRING(64) AS (LOWER(Name)) STORED
) PRIMARY KEY (ID);

-- Maps web features to groups.
CREATE TABLE IF NOT EXISTS WebFeatureGroups (
    WebFeatureID STRING(36) NOT NULL,
    -- Stores an array of Group IDs associated with this web feature.
    -- Each feature does not belong to many groups. For now, keep them here.
    GroupIDs ARRAY<STRING(36)>,
    FOREIGN KEY (WebFeatureID) REFERENCES WebFeatures(ID)  ON DELETE CASCADE
) PRIMARY KEY (WebFeatureID);

-- Stores descendant group IDs for each group.
-- This separate table allows efficient retrieval of features associated with a group and its descendants.
-- It also simplifies updates to the group hierarchy compared to storing descendant IDs directly within the WebDXGroups
-- table.
CREATE TABLE IF NOT EXISTS WebDXGroupDescendants (
    GroupID STRING(36) NOT NULL,
    -- Stores IDs of all descendant groups to optimize
    -- queries for features associated with a group and its children.
    -- TODO: Consider a separate GroupChildren table if the group hierarchy
    -- becomes deeply nested.
    DescendantGroupIDs ARRAY<STRING(36)>,
    FOREIGN KEY (GroupID) REFERENCES WebDXGroups(ID)  ON DELETE CASCADE
) PRIMARY KEY (GroupID);
-- file: infra/storage/spanner/migrations/000007.sql
-- Copyright 2024 Google LLC
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

-- Snapshots contains basic metadata about snapshots from the WebDX web features repository.
CREATE TABLE IF NOT EXISTS WebDXSnapshots (
    ID STRING(36) NOT NULL DEFAULT (GENERATE_UUID()),
    SnapshotKey STRING(64) NOT NULL,
    Name STRING(64) NOT NULL,
    -- Additional lowercase columns for case-insensitive search
    SnapshotKey_Lowercase STRING(64) AS (LOWER(SnapshotKey)) STORED,
    Name_Lowercase STRING(64) AS (LOWER(Name)) STORED,
) PRIMARY KEY (ID);

-- Maps web features to snapshots.
CREATE TABLE IF NOT EXISTS WebFeatureSnapshots (
    WebFeatureID STRING(36) NOT NULL,
    -- Stores an array of Snapshot IDs associated with this web feature.
    -- Each feature does not belong to many snapshots. For now, keep them here.
    SnapshotIDs ARRAY<STRING(36)>,
    FOREIGN KEY (WebFeatureID) REFERENCES WebFeatures(ID)  ON DELETE CASCADE
) PRIMARY KEY (WebFeatureID);
-- file: infra/storage/spanner/migrations/000008.sql
-- Copyright 2024 Google LLC
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


-- ChromiumHistogramEnums contains metadata about a histogram within a enum found in
-- https://chromium.googlesource.com/chromium/src/+/main/tools/metrics/histograms/enums.xml
CREATE TABLE IF NOT EXISTS ChromiumHistogramEnums (
    ID STRING(36) NOT NULL DEFAULT (GENERATE_UUID()),
    HistogramName STRING(MAX) NOT NULL,
    -- Additional lowercase columns for case-insensitive search
    HistogramName_Lowercase STRING(64) AS (LOWER(HistogramName)) STORED,
) PRIMARY KEY (ID);

-- Used to enforce that only one HistogramName from ChromiumHistogramEnums can exist.
CREATE UNIQUE NULL_FILTERED INDEX ChromiumHistogramEnumsByHistogramName ON ChromiumHistogramEnums (HistogramName);

-- ChromiumHistogramEnumValues contains metadata about the values within an enum found in
-- https://chromium.googlesource.com/chromium/src/+/main/tools/metrics/histograms/enums.xml
CREATE TABLE IF NOT EXISTS ChromiumHistogramEnumValues (
    ID STRING(36) NOT NULL DEFAULT (GENERATE_UUID()),
    ChromiumHistogramEnumID STRING(36) NOT NULL,
    BucketID INT64 NOT NULL,
    Label STRING(MAX) NOT NULL,
    -- Additional lowercase columns for case-insensitive search
    Label_Lowercase STRING(64) AS (LOWER(Label)) STORED,
    FOREIGN KEY (ChromiumHistogramEnumID) REFERENCES ChromiumHistogramEnums(ID)  ON DELETE CASCADE
) PRIMARY KEY (ID);

-- Used to enforce that only one combination of Enum and Bucket
CREATE UNIQUE NULL_FILTERED INDEX UniqueEnumValuesByEnumAndBucket ON ChromiumHistogramEnumValues(ChromiumHistogramEnumID, BucketID);

-- Maps web features to ChromiumHistogramEnumValues.
-- This is specific to the WebDXFeatureObserver enum.
CREATE TABLE IF NOT EXISTS WebFeatureChromiumHistogramEnumValues (
    WebFeatureID STRING(36) NOT NULL,
    ChromiumHistogramEnumValueID STRING(36),
    FOREIGN KEY (WebFeatureID) REFERENCES WebFeatures(ID)  ON DELETE CASCADE,
    FOREIGN KEY (ChromiumHistogramEnumValueID) REFERENCES ChromiumHistogramEnumValues(ID)  ON DELETE CASCADE
) PRIMARY KEY (WebFeatureID);

-- DailyChromiumHistogramMetrics contains the daily metrics.
CREATE TABLE IF NOT EXISTS DailyChromiumHistogramMetrics (
    ChromiumHistogramEnumValueID STRING(36) NOT NULL,
    Day DATE NOT NULL,
    Rate NUMERIC NOT NULL,
    FOREIGN KEY (ChromiumHistogramEnumValueID) REFERENCES ChromiumHistogramEnumValues(ID) ON DELETE CASCADE
) PRIMARY KEY (ChromiumHistogramEnumValueID, Day);

-- DailyChromiumHistogramEnumCapstones records completed enum ingestions for a particular day.
CREATE TABLE IF NOT EXISTS DailyChromiumHistogramEnumCapstones (
    ChromiumHistogramEnumID STRING(36) NOT NULL,
    Day DATE NOT NULL,
    FOREIGN KEY (ChromiumHistogramEnumID) REFERENCES ChromiumHistogramEnums(ID) ON DELETE CASCADE
) PRIMARY KEY (ChromiumHistogramEnumID, Day);
-- file: infra/storage/spanner/migrations/000009.sql
-- Copyright 2024 Google LLC
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

-- SavedSearches contains the most current revisions of saved searches.
--
-- A future table will contain the historical revisions of saved searches
-- allowing for auditing and reverting to older versions of the saved search.
CREATE TABLE IF NOT EXISTS SavedSearches (
    ID STRING(36) NOT NULL DEFAULT (GENERATE_UUID()),
    -- Name is the name of the saved search.
    Name STRING(MAX) NOT NULL,
    -- Query is the query string of the saved search.
    Query STRING(MAX) NOT NULL,
    -- Scope is the scope of the saved search, which can be one of the following:
    -- USER_PUBLIC: The saved search is created by a user and is publicly accessible.
    Scope STRING(MAX) NOT NULL,
    -- AuthorID is only for auditing purposes. The author may not always be the
    -- owner. Instead, we should always rely on SavedSearchUserRoles for current
    -- roles.
    AuthorID STRING(MAX) NOT NULL,
    -- CreatedAt is the timestamp of the first saved search revision.
    CreatedAt TIMESTAMP OPTIONS (allow_commit_timestamp=true),
    -- UpdatedAt is the timestamp of the most recent revision.
    UpdatedAt TIMESTAMP OPTIONS (allow_commit_timestamp=true)
) PRIMARY KEY (ID);

-- SavedSearchUserRoles keeps track of the user's role for a given saved search.
CREATE TABLE IF NOT EXISTS SavedSearchUserRoles (
    SavedSearchID STRING(36) NOT NULL,
    UserID STRING(MAX) NOT NULL,
    UserRole STRING(MAX) NOT NULL,
    FOREIGN KEY (SavedSearchID) REFERENCES SavedSearches(ID)  ON DELETE CASCADE
) PRIMARY KEY (UserID, SavedSearchID);

-- UserSavedSearchBookmarks keeps track of the user's bookmarks for user-created saved searches.
CREATE TABLE IF NOT EXISTS UserSavedSearchBookmarks (
    SavedSearchID STRING(36) NOT NULL,
    UserID STRING(MAX) NOT NULL,
    FOREIGN KEY (SavedSearchID) REFERENCES SavedSearches(ID)  ON DELETE CASCADE
) PRIMARY KEY (UserID, SavedSearchID);
-- file: infra/storage/spanner/migrations/000010.sql
-- Copyright 2024 Google LLC
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

-- This table provides an exhaustive view of feature support events for each browser,
-- considering the releases of ALL browsers.
-- It differs from BrowserFeatureAvailabilities, which only lists features explicitly
-- mentioned as supported in a specific release.
--
-- TargetBrowserName: The browser for which we're tracking feature support.
-- EventBrowserName: The browser whose release potentially affects the support status.
-- EventReleaseDate: The release date of the EventBrowserName.
--
-- This structure is necessary due to the lack of full support for window functions
-- in Spanner. It allows for efficient querying and analysis of "missing one
-- implementation" counts and other feature-related metrics, considering the
-- impact of releases from any browser, without relying on complex or
-- potentially inefficient queries.
CREATE TABLE IF NOT EXISTS BrowserFeatureSupportEvents (
    TargetBrowserName STRING(64) NOT NULL,  -- The browser for which we're tracking support
    EventBrowserName  STRING(64) NOT NULL,  -- The browser whose release triggered the event
    EventReleaseDate TIMESTAMP NOT NULL,  -- The release date of the EventBrowserName
    WebFeatureID      STRING(36) NOT NULL,
    SupportStatus     STRING(32) NOT NULL, -- Check lib/gcpspanner/browser_feature_support_event.go for possible values.
    CONSTRAINT FK_WebFeatureID FOREIGN KEY (WebFeatureID) REFERENCES WebFeatures(ID) ON DELETE CASCADE,
    CONSTRAINT FK_EventBrowserRelease FOREIGN KEY (EventBrowserName, EventReleaseDate) REFERENCES BrowserReleases(BrowserName, ReleaseDate) ON DELETE CASCADE
) PRIMARY KEY (TargetBrowserName, EventBrowserName, EventReleaseDate, WebFeatureID);
-- file: infra/storage/spanner/migrations/000011.sql
-- Copyright 2024 Google LLC
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

-- LatestDailyChromiumHistogramMetrics contains latest snapshot of WPT metric information for a web feature.
CREATE TABLE IF NOT EXISTS LatestDailyChromiumHistogramMetrics (
    WebFeatureID STRING(36) NOT NULL,
    ChromiumHistogramEnumValueID STRING(36) NOT NULL,
    Day DATE NOT NULL,
    FOREIGN KEY (WebFeatureID) REFERENCES WebFeatures(ID),
    FOREIGN KEY (ChromiumHistogramEnumValueID) REFERENCES ChromiumHistogramEnumValues(ID) ON DELETE CASCADE,
    FOREIGN KEY (ChromiumHistogramEnumValueID, Day) REFERENCES DailyChromiumHistogramMetrics(ChromiumHistogramEnumValueID, Day) ON DELETE CASCADE,
) PRIMARY KEY (WebFeatureID, ChromiumHistogramEnumValueID);
-- file: infra/storage/spanner/migrations/000012.sql
-- Copyright 2024 Google LLC
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

-- This index is designed to optimize queries that retrieve "missing one implementation" counts.
-- It covers the columns used to identify features supported by all browsers except the target browser
-- on a specific release date. The descending order on EventReleaseDate supports efficient retrieval
-- of the most recent releases.
CREATE INDEX BrowserFeatureSupportEvents_MissingOne ON
    BrowserFeatureSupportEvents(
        WebFeatureID,
        EventReleaseDate DESC,
        TargetBrowserName,
        SupportStatus
    );
-- file: infra/storage/spanner/migrations/000013.sql
-- Copyright 2024 Google LLC
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

-- Add optional description to saved searches.
ALTER TABLE SavedSearches ADD COLUMN Description STRING(MAX);
-- file: infra/storage/spanner/migrations/000014.sql
-- Copyright 2025 Google LLC
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

-- FeatureDiscouragedDetails contains information about why a feature is discouraged
CREATE TABLE IF NOT EXISTS FeatureDiscouragedDetails (
    WebFeatureID STRING(MAX) NOT NULL,
    AccordingTo ARRAY<STRING(MAX)>,
    Alternatives ARRAY<STRING(MAX)>,
    CONSTRAINT FK_DiscouragedDetailsWebFeatureID FOREIGN KEY (WebFeatureID) REFERENCES WebFeatures(ID) ON DELETE CASCADE,
) PRIMARY KEY (WebFeatureID);
-- file: infra/storage/spanner/migrations/000015.sql
-- Copyright 2025 Google LLC
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

ALTER TABLE FeatureSpecs ALTER COLUMN Links ARRAY<STRING(MAX)>;
-- file: infra/storage/spanner/migrations/000016.sql
-- Copyright 2025 Google LLC
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

-- WebFeatureBrowserCompatFeatures stores the compat_features list (e.g. "html.elements.address")
-- for each WebFeature. Multiple compat features may exist per feature.
CREATE TABLE IF NOT EXISTS WebFeatureBrowserCompatFeatures (
    ID STRING(36) NOT NULL, -- same name and type as parent
    CompatFeature STRING(255) NOT NULL,
    FOREIGN KEY (ID) REFERENCES WebFeatures(ID)
) PRIMARY KEY (ID, CompatFeature)
,   INTERLEAVE IN PARENT WebFeatures ON DELETE CASCADE;

-- Index to accelerate searches by CompatFeature
CREATE INDEX IDX_CompatFeature ON WebFeatureBrowserCompatFeatures(CompatFeature);
-- file: infra/storage/spanner/migrations/000017.sql
-- Copyright 2025 Google LLC
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

-- These fields will always be there according to:
-- https://github.com/web-platform-dx/web-features/blob/6a8a139eaf30a64422a94d825b87ab9549cb6b89/schemas/data.schema.json#L257-L259

-- Add description to web features.
ALTER TABLE WebFeatures ADD COLUMN Description STRING(MAX) NOT NULL DEFAULT ('');
ALTER TABLE WebFeatures ADD COLUMN DescriptionHtml STRING(MAX) NOT NULL DEFAULT ('');
-- Lowercase only the description column for basic searching for now.
ALTER TABLE WebFeatures ADD COLUMN Description_Lowercase STRING(MAX) AS (LOWER(Description)) STORED;
-- file: infra/storage/spanner/migrations/000018.sql
-- Copyright 2025 Google LLC
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

-- A denormalized lookup table mapping features to direct/inherited groups.
-- It is interleaved in WebDXGroups to optimize search query JOINs.
CREATE TABLE IF NOT EXISTS FeatureGroupIDsLookup (
    -- This column's name, 'ID', must match the primary key
    -- column's name in the interleaved parent table, 'WebDXGroups'.
    ID STRING(36) NOT NULL,
    WebFeatureID STRING(36) NOT NULL,
    -- The hierarchy level of the association. A value of 0 means a direct
    -- link. A value of 1 means this group is the direct parent of the
    -- feature's group, 2 means it's a grandparent, and so on.
    -- TODO. Future queries may use this column
    Depth INT64 NOT NULL,
    CONSTRAINT FK_FeatureGroupIDsLookup_WebFeatures FOREIGN KEY (WebFeatureID) REFERENCES WebFeatures(ID) ON DELETE CASCADE,
    CONSTRAINT FK_FeatureGroupIDsLookup_WebDXGroups FOREIGN KEY (ID) REFERENCES WebDXGroups(ID)
) PRIMARY KEY (ID, WebFeatureID)
,   INTERLEAVE IN PARENT WebDXGroups ON DELETE CASCADE;
-- file: infra/storage/spanner/migrations/000019.sql
-- Copyright 2025 Google LLC
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

-- WebFeatureGroups is no longer used. Instead, FeatureGroupKeysLookup is used.
DROP TABLE IF EXISTS WebFeatureGroups;

-- WebDXGroupDescendants is no longer used. Instead, FeatureGroupKeysLookup is used.
DROP TABLE IF EXISTS WebDXGroupDescendants;
-- file: infra/storage/spanner/migrations/000020.sql
-- Copyright 2025 Google LLC
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

CREATE TABLE IF NOT EXISTS MovedWebFeatures (
    ID STRING(36) NOT NULL DEFAULT (GENERATE_UUID()),
    OriginalFeatureKey STRING(64) NOT NULL, -- From web features repo.
    TargetWebFeatureID STRING(36) NOT NULL, -- From web features repo.
    -- Additional lowercase columns for case-insensitive search
    OriginalFeatureKey_Lowercase STRING(64) AS (LOWER(OriginalFeatureKey)) STORED,
    CONSTRAINT FK_MovedWebFeaturesTargetWebFeatureID FOREIGN KEY (TargetWebFeatureID) REFERENCES WebFeatures(ID) ON DELETE CASCADE,
) PRIMARY KEY (ID);

CREATE TABLE IF NOT EXISTS SplitWebFeatures (
    ID STRING(36) NOT NULL DEFAULT (GENERATE_UUID()),
    OriginalFeatureKey STRING(64) NOT NULL, -- From web features repo.
    TargetWebFeatureID STRING(36) NOT NULL, -- From web features repo.
    -- Additional lowercase columns for case-insensitive search
    OriginalFeatureKey_Lowercase STRING(64) AS (LOWER(OriginalFeatureKey)) STORED,
    CONSTRAINT FK_SplitWebFeatures_TargetWebFeatureID FOREIGN KEY (TargetWebFeatureID) REFERENCES WebFeatures(ID) ON DELETE CASCADE,
) PRIMARY KEY (ID);
-- file: infra/storage/spanner/migrations/000021.sql
-- Copyright 2025 Google LLC
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

-- LatestFeatureDeveloperSignals contains the latest developer signal(s) for a given features.
-- For now, the only signal for a feature is the thumbs up.
CREATE TABLE IF NOT EXISTS LatestFeatureDeveloperSignals (
    WebFeatureID STRING(36) NOT NULL,
    Votes INT64 NOT NULL,
    Link STRING(MAX) NOT NULL,
    FOREIGN KEY (WebFeatureID) REFERENCES WebFeatures(ID) ON DELETE CASCADE,
) PRIMARY KEY (WebFeatureID);
-- file: infra/storage/spanner/migrations/000022.sql
-- Copyright 2025 Google LLC
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

-- DDL statements for the WebFeaturesMappingData table.

CREATE TABLE IF NOT EXISTS WebFeaturesMappingData (
    WebFeatureID STRING(36) NOT NULL,
    VendorPositions JSON,
    CONSTRAINT FK_WebFeaturesMappingData_WebFeatureID FOREIGN KEY (WebFeatureID) REFERENCES WebFeatures(ID) ON DELETE CASCADE,
) PRIMARY KEY (WebFeatureID);
-- file: infra/storage/spanner/migrations/000023.sql
-- Copyright 2025 Google LLC
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

-- NotificationChannels stores the reusable delivery destinations for a user.
CREATE TABLE IF NOT EXISTS NotificationChannels (
    ID STRING(36) NOT NULL DEFAULT (GENERATE_UUID()),
    UserID STRING(MAX) NOT NULL,
    Name STRING(MAX) NOT NULL,
    Type STRING(MAX) NOT NULL,
    Config JSON,
    CreatedAt TIMESTAMP NOT NULL OPTIONS(allow_commit_timestamp = true),
    UpdatedAt TIMESTAMP NOT NULL OPTIONS(allow_commit_timestamp = true)
) PRIMARY KEY (ID);

-- NotificationChannelStates stores the dynamic state and health data.
CREATE TABLE IF NOT EXISTS NotificationChannelStates (
    ChannelID STRING(36) NOT NULL,
    IsDisabledBySystem BOOL,
    ConsecutiveFailures INT64,
    CreatedAt TIMESTAMP NOT NULL OPTIONS(allow_commit_timestamp = true),
    UpdatedAt TIMESTAMP NOT NULL OPTIONS(allow_commit_timestamp = true),
    CONSTRAINT FK_NotificationChannelState_NotificationChannel FOREIGN KEY (ChannelID) REFERENCES NotificationChannels (ID) ON DELETE CASCADE
) PRIMARY KEY (ChannelID);
-- file: infra/storage/spanner/migrations/000024.sql
-- Copyright 2025 Google LLC
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

-- NotificationChannelDeliveryAttempts stores a log of delivery attempts for a channel.
CREATE TABLE IF NOT EXISTS NotificationChannelDeliveryAttempts (
    ID STRING(36) NOT NULL DEFAULT (GENERATE_UUID()),
    ChannelID STRING(36) NOT NULL,
    AttemptTimestamp TIMESTAMP NOT NULL,
    Status STRING(MAX) NOT NULL, -- SUCCESS or FAILURE
    Details JSON,
    CONSTRAINT FK_NotificationChannelDeliveryAttempt_NotificationChannel FOREIGN KEY (ChannelID) REFERENCES NotificationChannels(ID) ON DELETE CASCADE
) PRIMARY KEY (ID, ChannelID);

-- Index to get the latest attempts for a channel
CREATE INDEX IX_NotificationChannelDeliveryAttempt_AttemptTimestamp
ON NotificationChannelDeliveryAttempts (ChannelID, AttemptTimestamp DESC);
-- file: infra/storage/spanner/migrations/000025.sql
-- Copyright 2025 Google LLC
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

-- SavedSearchSubscriptions links a User to a Saved Search via a Channel.
CREATE TABLE IF NOT EXISTS SavedSearchSubscriptions (
    ID STRING(36) NOT NULL DEFAULT (GENERATE_UUID()),
    ChannelID STRING(36) NOT NULL,
    SavedSearchID STRING(36) NOT NULL,
    Triggers ARRAY<STRING(MAX)>,
    Frequency STRING(MAX),
    CreatedAt TIMESTAMP NOT NULL OPTIONS(allow_commit_timestamp = true),
    UpdatedAt TIMESTAMP NOT NULL OPTIONS(allow_commit_timestamp = true),
    CONSTRAINT FK_SavedSearchSubscription_NotificationChannel FOREIGN KEY (ChannelID) REFERENCES NotificationChannels (ID) ON DELETE CASCADE,
    CONSTRAINT FK_SavedSearchSubscription_SavedSearches FOREIGN KEY (SavedSearchID) REFERENCES SavedSearches (ID) ON DELETE CASCADE
) PRIMARY KEY (ID);
-- file: infra/storage/spanner/migrations/000026.sql
-- Copyright 2025 Google LLC
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

-- SavedSearchState
-- This table tracks the "Last Known State" for the diff engine and handles worker locking.
CREATE TABLE IF NOT EXISTS SavedSearchState (
    SavedSearchId STRING(36) NOT NULL,
    SnapshotType STRING(MAX) NOT NULL, -- Enum: IMMEDIATE, WEEKLY, MONTHLY
    LastKnownStateBlobPath STRING(MAX),
    WorkerLockId STRING(MAX),
    WorkerLockExpiresAt TIMESTAMP,

    CONSTRAINT FK_SavedSearchState_SavedSearch
        FOREIGN KEY (SavedSearchId) REFERENCES SavedSearches(ID) ON DELETE CASCADE

) PRIMARY KEY (SavedSearchId, SnapshotType);
-- file: infra/storage/spanner/migrations/000027.sql
-- Copyright 2025 Google LLC
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

-- SavedSearchNotificationEvents
-- The append-only log of all generated events ("The Fact Table").
CREATE TABLE IF NOT EXISTS SavedSearchNotificationEvents (
    EventId STRING(36) NOT NULL DEFAULT (GENERATE_UUID()),
    SavedSearchId STRING(36) NOT NULL,
    SnapshotType STRING(MAX) NOT NULL,
    Timestamp TIMESTAMP NOT NULL OPTIONS (allow_commit_timestamp=true),
    EventType STRING(MAX) NOT NULL, -- Enum: IMMEDIATE_DIFF, WEEKLY_DIGEST, etc.
    Reason STRING(MAX) NOT NULL,    -- Enum: DATA_UPDATED, QUERY_EDITED, etc.
    BlobPath STRING(MAX) NOT NULL,
    Summary JSON,
    DiffKind STRING(MAX),           -- e.g., "SavedSearchDiffList"
    DataVersion STRING(MAX),        -- e.g., "v1"

    CONSTRAINT FK_Events_State
        FOREIGN KEY (SavedSearchId, SnapshotType)
        REFERENCES SavedSearchState (SavedSearchId, SnapshotType) ON DELETE CASCADE

) PRIMARY KEY (EventId);


-- This index prevents full table scans during RSS polling.
CREATE INDEX IF NOT EXISTS SavedSearchNotificationEvents_BySearchAndType
ON SavedSearchNotificationEvents (SavedSearchId, EventType, Timestamp DESC);
-- file: infra/storage/spanner/migrations/000028.sql
-- Copyright 2025 Google LLC
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

-- 1. DiffBlobPath: Points to the GCS object containing the structured FeatureDiff.
--    Replaces the idea of storing the raw JSON in the DB.
--    Example: "gs://bucket/events/{event_id}/diff.json"
--    This is similar to the existing BlobPath column which stores the summary blob path.
--    The blob is self documenting and contains the vesion and kind information within it.
ALTER TABLE SavedSearchNotificationEvents ADD COLUMN DiffBlobPath STRING(MAX);

-- 2. Drop columns that are redundantly handled by the Blob Envelope (metadata inside the blob)
ALTER TABLE SavedSearchNotificationEvents DROP COLUMN DiffKind;
ALTER TABLE SavedSearchNotificationEvents DROP COLUMN DataVersion;

-- 3. Change 'Reason' column to 'Reasons' ARRAY to support multiple reasons per event.
-- The original 'Reason' column was a single string, which couldn't handle the
-- "Both" scenario (Data Updated + Query Edited).
-- We replace it with an ARRAY so we can tag an event with multiple reasons.
ALTER TABLE SavedSearchNotificationEvents DROP COLUMN Reason;
ALTER TABLE SavedSearchNotificationEvents ADD COLUMN Reasons ARRAY<STRING(MAX)>;
-- file: infra/storage/spanner/migrations/000029.sql
-- Copyright 2026 Google LLC
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

-- This index helps get the latest events for a search for the event producer worker.
CREATE INDEX IF NOT EXISTS SavedSearchNotificationEvents_BySearchAndSnapshotType
ON SavedSearchNotificationEvents (SavedSearchId, SnapshotType, Timestamp DESC);
-- file: infra/storage/spanner/migrations/000030.sql
-- Copyright 2026 Google LLC
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

-- Adds a table to store the system generated saved search for a feature.
-- This is a one-to-one mapping.
CREATE TABLE SystemManagedSavedSearches (
    FeatureID STRING(36) NOT NULL,
    SavedSearchID STRING(36) NOT NULL,
    CreatedAt TIMESTAMP NOT NULL OPTIONS(allow_commit_timestamp = true),
    UpdatedAt TIMESTAMP NOT NULL OPTIONS(allow_commit_timestamp = true),
    CONSTRAINT FK_SystemManagedSavedSearches_WebFeatures FOREIGN KEY (FeatureID) REFERENCES WebFeatures (ID) ON DELETE CASCADE,
    CONSTRAINT FK_SystemManagedSavedSearches_SavedSearches FOREIGN KEY (SavedSearchID) REFERENCES SavedSearches (ID) ON DELETE CASCADE
) PRIMARY KEY (FeatureID);

CREATE UNIQUE INDEX IX_SystemManagedSavedSearches_SavedSearchId ON SystemManagedSavedSearches(SavedSearchID);
-- file: infra/storage/spanner/migrations/000031.sql
-- Copyright 2026 Google LLC
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

-- SystemGlobalSavedSearches controls the display of global saved searches that
-- are visible to all users.
-- This is intended for use by system-defined searches such as Baselines and
-- Top Interop issues, which are critical for users to easily discover and track.
-- By centralizing the management of these global searches in a dedicated table,
-- we can ensure they are consistently displayed across the application and
-- prevent accidental modifications or deletions by end users.
CREATE TABLE SystemGlobalSavedSearches (
    SavedSearchID STRING(36) NOT NULL,
    -- DisplayOrder dictates the UI ordering of global searches (e.g. Baseline 2026, Top CSS).
    -- It is queried using ORDER BY DESC (Highest is Top) so it can scale infinitely forward
    -- as new years are added without descending into zero or negative integers.
    DisplayOrder INT64 NOT NULL,
    -- Status indicates whether the global saved search is currently active and should be displayed to users.
    -- This allows for easy deprecation of old searches without deleting them from the database, preserving historical data and preventing broken references in user-generated content.
    -- The "all" saved search will also be marked as unlisted to prevent it from showing up in the UI, but it will still be accessible via direct link and can be used as a catch-all query for API requests.
    Status STRING(32) NOT NULL,
    CONSTRAINT FK_SystemGlobal_SavedSearches FOREIGN KEY (SavedSearchID) REFERENCES SavedSearches (ID) ON DELETE CASCADE
) PRIMARY KEY (SavedSearchID);

-- SavedSearchFeatureSortOrder specifies an explicit UI sort order for features
-- within a global saved search
CREATE TABLE SavedSearchFeatureSortOrder (
    SavedSearchID STRING(36) NOT NULL,
    FeatureKey STRING(64) NOT NULL,
    -- PositionIndex dictates the UI ordering of features within a specific curated search.
    -- It is queried using ORDER BY ASC (Lowest is Top). Start at 10 and explicitly increment
    -- by 10 (10, 20, 30) to allow injecting new features comfortably between them over time.
    PositionIndex INT64 NOT NULL,
    CONSTRAINT FK_SavedSearchSort_SavedSearch FOREIGN KEY (SavedSearchID) REFERENCES SavedSearches (ID) ON DELETE CASCADE
) PRIMARY KEY (SavedSearchID, FeatureKey);
-- file: infra/storage/spanner/migrations/000032.sql
-- Copyright 2026 Google LLC
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

-- Note: System Global Saved Searches use descriptive string IDs (e.g. 'baseline-2026')
-- instead of random UUIDs to prevent accidental overwrites of user-generated searches
-- and to ensure these system records are easily identifiable in the database.

-- BASELINE SEARCHES
-- These searches rely on the default feature search sorting logic (Baseline Status / Low Date).
-- Baseline 2026
-- Baseline 2025
-- Baseline 2024
-- Baseline 2023
-- Baseline 2022
-- Baseline 2021
-- Baseline 2020

-- TOP CSS INTEROP ISSUES
-- The display order of the features within this search is explicitly overridden below to ensure the most critical items surface first.

-- TOP HTML INTEROP ISSUES
-- The display order of the features within this search is explicitly overridden below to ensure the most critical items surface first.

-- ALL FEATURES
-- Default ordering implicitly applied. Shown for completeness.
-- file: infra/storage/spanner/migrations/000033.sql
-- Copyright 2026 Google LLC
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

-- 1. General index to speed up ListNotificationChannels.
CREATE INDEX IDX_NotificationChannels_UserID ON NotificationChannels (UserID);

-- 2. Add generated column that is ONLY populated for RSS channels.
-- For non-RSS channels, this column will be NULL.
ALTER TABLE NotificationChannels ADD COLUMN RSSUserID STRING(MAX) AS (CASE WHEN Type = 'rss' THEN UserID ELSE NULL END) STORED;

-- 3. Filtered Unique index on the single column.
-- Since it's a single column index and NULL_FILTERED, rows where RSSUserID is NULL (non-RSS)
-- will be excluded from the index entirely, allowing duplicates for non-RSS channels.
CREATE UNIQUE NULL_FILTERED INDEX IDX_UniqueRSSChannelPerUser
ON NotificationChannels (RSSUserID);
-- file: infra/storage/spanner/migrations/000034.sql
-- Copyright 2026 Google LLC
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

-- Migration: 000034.sql
-- Description: Add VCSInstallations table for GitHub App and multi-VCS connections.

CREATE TABLE IF NOT EXISTS VCSInstallations (
    ID STRING(36) NOT NULL,
    VCSProvider STRING(32) NOT NULL,
    VCSInstallationID STRING(128) NOT NULL,
    AccountLogin STRING(256) NOT NULL,
    AccountType STRING(32) NOT NULL,
    RepositorySelection STRING(32) NOT NULL,
    Permissions JSON NOT NULL,
    CreatedAt TIMESTAMP NOT NULL OPTIONS (allow_commit_timestamp=true),
    UpdatedAt TIMESTAMP NOT NULL OPTIONS (allow_commit_timestamp=true),
) PRIMARY KEY (ID);

CREATE UNIQUE INDEX IF NOT EXISTS IDX_VCSInstallations_Provider_InstallationID ON VCSInstallations(VCSProvider, VCSInstallationID);
CREATE INDEX IF NOT EXISTS IDX_VCSInstallations_Provider_AccountLogin ON VCSInstallations(VCSProvider, AccountLogin);
-- file: infra/storage/spanner/migrations/000035.sql
-- Copyright 2026 Google LLC
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

-- Migration: 000035.sql
-- Description: Add CodeSubscriptions table.

CREATE TABLE CodeSubscriptions (
    ID STRING(36) NOT NULL,
    VCSProvider STRING(32) NOT NULL,
    VCSInstallationID STRING(128) NOT NULL,
    VCSRepositoryID STRING(128) NOT NULL,
    RepositoryFullName STRING(256) NOT NULL,
    TargetQuery STRING(2048) NOT NULL,
    Triggers ARRAY<STRING(64)> NOT NULL,
    Status STRING(32) NOT NULL,
    Occurrences JSON NOT NULL,
    CreatedAt TIMESTAMP NOT NULL OPTIONS (allow_commit_timestamp=true),
    UpdatedAt TIMESTAMP NOT NULL OPTIONS (allow_commit_timestamp=true),
) PRIMARY KEY (ID);

CREATE UNIQUE INDEX IDX_CodeSubscriptions_Provider_Repo_Target ON CodeSubscriptions(VCSProvider, VCSRepositoryID, TargetQuery);
CREATE INDEX IDX_CodeSubscriptions_Provider_Repo ON CodeSubscriptions(VCSProvider, VCSRepositoryID);
CREATE INDEX IDX_CodeSubscriptions_TargetQuery ON CodeSubscriptions(TargetQuery);
-- file: infra/storage/spanner/migrations/000036.sql
-- Copyright 2026 Google LLC
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

-- Migration: 000036.sql
-- Description: Add CodeSubscriptionDeliveries table.

CREATE TABLE IF NOT EXISTS CodeSubscriptionDeliveries (
    ID STRING(36) NOT NULL,
    SubscriptionID STRING(36) NOT NULL,
    DeliveryStatus STRING(32) NOT NULL,
    DeliveryChannel STRING(32) NOT NULL,
    LockExpiresAt TIMESTAMP,
    WorkerLockID STRING(64),
    DeliveredAt TIMESTAMP,
    ExternalIssueID STRING(128),
    ExternalIssueURL STRING(1024),
    ErrorMessage STRING(2048),
    CreatedAt TIMESTAMP NOT NULL OPTIONS (allow_commit_timestamp=true),
    UpdatedAt TIMESTAMP NOT NULL OPTIONS (allow_commit_timestamp=true),
    CONSTRAINT FK_Deliveries_Subscription FOREIGN KEY (SubscriptionID) REFERENCES CodeSubscriptions(ID) ON DELETE CASCADE,
) PRIMARY KEY (ID);

CREATE INDEX IF NOT EXISTS IDX_Deliveries_SubscriptionID ON CodeSubscriptionDeliveries(SubscriptionID);
CREATE INDEX IF NOT EXISTS IDX_Deliveries_LockStatus ON CodeSubscriptionDeliveries(DeliveryStatus, LockExpiresAt, CreatedAt);
-- file: infra/storage/spanner/migrations/000037.sql
-- Copyright 2026 Google LLC
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

-- Migration: 000037.sql
-- Description: Add CodeSubscriptionScanLogs and VCSWebhookDeliveries tables with native row deletion policies.

CREATE TABLE IF NOT EXISTS CodeSubscriptionScanLogs (
    ID STRING(36) NOT NULL,
    VCSProvider STRING(32) NOT NULL,
    VCSRepositoryID STRING(128) NOT NULL,
    CommitSHA STRING(64) NOT NULL,
    Branch STRING(256) NOT NULL,
    ScanStatus STRING(32) NOT NULL,
    FilesScanned INT64 NOT NULL,
    DirectivesFound INT64 NOT NULL,
    ErrorMessage STRING(2048),
    ScannedAt TIMESTAMP NOT NULL OPTIONS (allow_commit_timestamp=true),
) PRIMARY KEY (ID),
ROW DELETION POLICY (OLDER_THAN(ScannedAt, INTERVAL 30 DAY));

CREATE INDEX IF NOT EXISTS IDX_CodeSubscriptionScanLogs_Repo_ScannedAt ON CodeSubscriptionScanLogs(VCSProvider, VCSRepositoryID, ScannedAt DESC);

CREATE TABLE IF NOT EXISTS VCSWebhookDeliveries (
    VCSProvider STRING(32) NOT NULL,
    DeliveryGUID STRING(128) NOT NULL,
    EventType STRING(64) NOT NULL,
    VCSRepositoryID STRING(128) NOT NULL,
    ReceivedAt TIMESTAMP NOT NULL OPTIONS (allow_commit_timestamp=true),
) PRIMARY KEY (VCSProvider, DeliveryGUID),
ROW DELETION POLICY (OLDER_THAN(ReceivedAt, INTERVAL 7 DAY));

CREATE INDEX IF NOT EXISTS IDX_VCSWebhookDeliveries_ReceivedAt ON VCSWebhookDeliveries(ReceivedAt);
