-- source: https://github.com/golang-migrate/migrate/blob/146991f70a73baa3677d34aa5fa6c1236e1ca709/database/spanner/examples/migrations2/1496539702_add_city_to_users.up.sql
ALTER TABLE Users ADD COLUMN city STRING(100);
