-- source: https://github.com/pressly/goose/blob/b4eb9d2f88fd5c71cca26e360f9362cb61a2a33f/internal/testing/integration/testdata/migrations/spanner/00001_table.sql
-- +goose NO TRANSACTION
-- +goose Up
-- +goose StatementBegin
CREATE TABLE owners (
    owner_id INT64 NOT NULL,
    owner_name STRING(255) NOT NULL,
    owner_type STRING(50) NOT NULL,
) PRIMARY KEY(owner_id)
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
DROP TABLE owners
-- +goose StatementEnd
