-- source: https://github.com/google/fleetspeak/blob/053c50f5388f57043ecee62ce002c5d1222fb8c6/spanner-setup/setup.sh (the --ddl of each gcloud spanner databases ddl update, in order, unedited; its PROTO BUNDLE needs a descriptor file DDL cannot carry)
CREATE PROTO BUNDLE (`google.protobuf.Any`,`google.protobuf.Timestamp`,`fleetspeak.Address`,`fleetspeak.Annotations`,`fleetspeak.Annotations.Entry`,`fleetspeak.Label`,`fleetspeak.MessageResult`,`fleetspeak.ValidationInfo`,`fleetspeak.server.Broadcast`,`fleetspeak.server.ClientResourceUsageRecord`);

CREATE TABLE Clients (
  ClientID BYTES(8) NOT NULL,
  ClientKey BYTES(8192) NOT NULL,
  LastContactTime TIMESTAMP NOT NULL OPTIONS (allow_commit_timestamp=true),
  LastContactAddress STRING(64),
  LastContactStreamingTo STRING(128),
  Blacklisted BOOL NOT NULL,
  LastClock `google.protobuf.Timestamp`,
) PRIMARY KEY (ClientID);

CREATE TABLE ClientLabels (
  ClientID BYTES(8) NOT NULL,
  Name STRING(MAX) NOT NULL AS (Label.label) STORED, 
  ServiceName STRING(MAX) NOT NULL AS (Label.service_name) STORED,
  Label `fleetspeak.Label`
) PRIMARY KEY(ClientID, ServiceName, Name),
  INTERLEAVE IN PARENT Clients ON DELETE CASCADE;

CREATE TABLE ClientContacts (
  ClientID BYTES(8) NOT NULL,
  Time TIMESTAMP NOT NULL OPTIONS (allow_commit_timestamp=true),
  SentNonce BYTES(8) NOT NULL,
  ReceivedNonce BYTES(8),
  Address STRING(64)
) PRIMARY KEY(ClientID, Time),
  INTERLEAVE IN PARENT Clients ON DELETE CASCADE,
  ROW DELETION POLICY (OLDER_THAN(Time, INTERVAL 14 DAY));

CREATE TABLE ClientContactMessages (
  ClientID BYTES(8) NOT NULL,
  Time TIMESTAMP NOT NULL OPTIONS (allow_commit_timestamp=true),
  MessageID BYTES(32) NOT NULL
) PRIMARY KEY(ClientID, Time, MessageID),
  INTERLEAVE IN PARENT ClientContacts ON DELETE CASCADE;

CREATE TABLE Messages (
  MessageID BYTES(32) NOT NULL,
  Source `fleetspeak.Address` NOT NULL,
  SourceMessageID BYTES(16),
  Destination `fleetspeak.Address` NOT NULL,
  MessageType STRING(64) NOT NULL,
  CreationTime TIMESTAMP,
  EncryptedData `google.protobuf.Any`,
  Result `fleetspeak.MessageResult`,
  ValidationInformation `fleetspeak.ValidationInfo`,
  Annotations `fleetspeak.Annotations`
) PRIMARY KEY(MessageID),
ROW DELETION POLICY (OLDER_THAN(CreationTime, INTERVAL 15 DAY));

CREATE TABLE ClientPendingMessages (
  ClientID BYTES(8) NOT NULL,
  MessageID BYTES(32) NOT NULL,
  RetryCount INT64 NOT NULL,
  ScheduledTime TIMESTAMP NOT NULL,
  DestinationServiceName STRING(128),
  CreationTime TIMESTAMP
) PRIMARY KEY(ClientID, MessageID),
  INTERLEAVE IN PARENT Clients ON DELETE CASCADE,
  ROW DELETION POLICY (OLDER_THAN(CreationTime, INTERVAL 14 DAY));

CREATE TABLE ClientResourceUsageRecords (
  ClientID BYTES(8) NOT NULL,
  ServerTimestamp TIMESTAMP NOT NULL OPTIONS (allow_commit_timestamp=true),
  Record `fleetspeak.server.ClientResourceUsageRecord`
) PRIMARY KEY(ClientID, ServerTimestamp),
  INTERLEAVE IN PARENT Clients ON DELETE CASCADE,
  ROW DELETION POLICY (OLDER_THAN(ServerTimestamp, INTERVAL 14 DAY));

CREATE TABLE Broadcasts(
  BroadcastID BYTES(MAX) NOT NULL AS (Broadcast.broadcast_id) STORED,
  Broadcast `fleetspeak.server.Broadcast` NOT NULL,
  Sent INT64 NOT NULL,
  Allocated INT64 NOT NULL,
  MessageLimit INT64 NOT NULL
) PRIMARY KEY(BroadcastID);

CREATE TABLE BroadcastAllocations (
  BroadcastID BYTES(MAX) NOT NULL,
  AllocationID BYTES(8) NOT NULL,
  Sent INT64 NOT NULL,
  MessageLimit INT64 NOT NULL,
  ExpiresTime `google.protobuf.Timestamp` NOT NULL
) PRIMARY KEY (BroadcastID, AllocationID),
  INTERLEAVE IN PARENT Broadcasts ON DELETE CASCADE;

CREATE TABLE BroadcastSent (
  BroadcastID BYTES(MAX) NOT NULL,
  ClientID BYTES(8) NOT NULL
) PRIMARY KEY (ClientID, BroadcastID),
  INTERLEAVE IN PARENT Clients ON DELETE CASCADE;

CREATE TABLE Files (
  Service STRING(128) NOT NULL,
  Name STRING(256) NOT NULL,
  ModifiedTime `google.protobuf.Timestamp`,
  Data BYTES(MAX)
  ) PRIMARY KEY (Service, Name);
