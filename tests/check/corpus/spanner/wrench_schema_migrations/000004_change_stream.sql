-- source: https://github.com/RoryQ/wrench/blob/3b9e4616920d745c127017526d04ecc5f1eb65eb/cmd/testdata/schema_test/migrations/000004_change_stream.sql
CREATE CHANGE STREAM MyStream FOR Singers;
