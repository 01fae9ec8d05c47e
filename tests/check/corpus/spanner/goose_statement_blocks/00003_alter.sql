-- source: https://github.com/pressly/goose/blob/cf055e845ad42bda60f6472b7de35bfce8f59290/internal/testing/integration/testdata/migrations/spanner/00003_alter.sql
-- +goose NO TRANSACTION
-- +goose Up
-- +goose StatementBegin
ALTER TABLE owners ADD COLUMN homepage_url STRING(255)
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
ALTER TABLE owners DROP COLUMN homepage_url
-- +goose StatementEnd
