-- source: https://github.com/cccteam/ccc/blob/b91739ce09f66a369b2594404bf3af07bc6ec923/resource/generation/testdata/migrations/000003_Cascades.up.sql
CREATE TABLE OrderLines (
  Id STRING(36) NOT NULL,
  LineNumber INT64 NOT NULL,
  StoreKey STRING(36),
) PRIMARY KEY (Id, LineNumber),
  INTERLEAVE IN PARENT Orders ON DELETE CASCADE;

CREATE TABLE OrderNotes (
  Id STRING(36) NOT NULL,
  NoteNumber INT64 NOT NULL,
  Body STRING(MAX) NOT NULL,
) PRIMARY KEY (Id, NoteNumber),
  INTERLEAVE IN PARENT Orders ON DELETE NO ACTION;

CREATE TABLE Attachments (
  Id STRING(36) NOT NULL,
  OrderId STRING(36) NOT NULL,
  TenantId STRING(36) NOT NULL,
  StoreKey STRING(36),

  CONSTRAINT FK_Attachments_OrderId FOREIGN KEY (OrderId) REFERENCES Orders(Id) ON DELETE CASCADE,
  CONSTRAINT FK_Attachments_TenantId FOREIGN KEY (TenantId) REFERENCES Tenants(Id),
) PRIMARY KEY (Id);
