-- source: https://github.com/einride/spanner-aip-go/blob/222551284c55b3dd49cf5335d872b302cee761c9/testdata/migrations/music/000003_create_rename_playlists.up.sql
CREATE TABLE Mixtapes (
   Id     INT64 NOT NULL,
) PRIMARY KEY (Id);

ALTER TABLE Mixtapes
    RENAME TO Playlists;
