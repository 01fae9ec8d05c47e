-- source: https://github.com/pressly/goose/blob/cf055e845ad42bda60f6472b7de35bfce8f59290/internal/testing/integration/testdata/migrations/spanner/00004_empty.sql
-- +goose Up
-- no-op

-- +goose Down
-- no-op
