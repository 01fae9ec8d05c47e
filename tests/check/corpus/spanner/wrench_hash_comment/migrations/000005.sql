-- source: https://github.com/cloudspannerecosystem/wrench/blob/519be57a0142ca94fdf9c70f4ee9e686369d5192/pkg/spanner/testdata/migrations/000005.sql
INSERT INTO Singers (SingerID, FirstName, LastName) VALUES ("2", "Hoge", "Fuga");
