-- source: https://github.com/einride/spanner-aip-go/blob/54c63345a600fac9ad7f9a05d74c610b0c97afc6/testdata/migrations/music/000002_create_drop_genres.up.sql
-- This migration should result in no schema changes.
CREATE TABLE Genres (
                        SingerId     INT64 NOT NULL,
                        GenreId      INT64 NOT NULL,
) PRIMARY KEY (SingerId, GenreId),
  INTERLEAVE IN PARENT Singers ON DELETE CASCADE;

DROP TABLE Genres;
