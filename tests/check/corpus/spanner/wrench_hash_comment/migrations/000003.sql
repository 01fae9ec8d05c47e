-- source: https://github.com/cloudspannerecosystem/wrench/blob/0d115a562a2a86442154abcef2ed280c9ac68f91/pkg/spanner/testdata/migrations/000003.sql
UPDATE Singers SET LastName = "" WHERE LastName IS NULL/* AND FirstName IS NULL */;
# UPDATE Singers SET FirstName = "" WHERE FirstName IS NULL;
