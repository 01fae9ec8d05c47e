-- source: https://github.com/pressly/goose/blob/9d6f1a8a89ffdf2917bc6b6d41c5660f98d3707c/internal/testing/integration/testdata/migrations/spanner/00005_no_tx.sql
-- +goose NO TRANSACTION

-- +goose Up
-- +goose StatementBegin
CREATE UNIQUE NULL_FILTERED INDEX owners_owner_name_idx ON owners (owner_name)
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
DROP INDEX owners_owner_name_idx
-- +goose StatementEnd
