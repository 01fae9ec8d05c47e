-- source: https://github.com/pressly/goose/blob/b4eb9d2f88fd5c71cca26e360f9362cb61a2a33f/internal/testing/integration/testdata/migrations/spanner/00006_view.sql
-- +goose NO TRANSACTION

-- +goose Up
-- +goose StatementBegin
CREATE VIEW view_owners
SQL SECURITY INVOKER AS
SELECT
  owners.owner_id,
  owners.owner_name,
  owners.owner_type
FROM owners
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
DROP VIEW view_owners
-- +goose StatementEnd
