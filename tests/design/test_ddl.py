import pytest

from keybench.design.ddl import (
    INDEX_KIND,
    SEQUENCE_KIND,
    TABLE_KIND,
    created_name,
    creates,
    creation,
    declaring_foreign_key,
    last_creating,
    split_ddl,
    split_ddl_lines,
    up_sections,
)


def test_split_ddl_drops_comments_and_keeps_semicolons_inside_quotes():
    text = ("-- a comment; with a semicolon\nCREATE TABLE A (X STRING(MAX) DEFAULT ('a;b')) PRIMARY KEY (X);\n\n"
            "CREATE INDEX I ON A(X);")
    assert split_ddl(text) == ["CREATE TABLE A (X STRING(MAX) DEFAULT ('a;b')) PRIMARY KEY (X)",
                               "CREATE INDEX I ON A(X)"]


def test_split_ddl_reads_block_comments_escaped_quotes_and_a_byte_order_mark():
    text = ("\ufeff/* a header;\n   over two lines */ CREATE TABLE A (\r\n"
            "  X STRING(MAX) DEFAULT ('it\\'s; -- not a comment'), /* the key */\r\n"
            "  Y STRING(MAX) DEFAULT ('/* kept */'),\r\n"
            ") PRIMARY KEY (X);\r\n"
            "CREATE INDEX I ON A(Y); -- trailing\n"
            "CREATE TABLE B (Z STRING(MAX) DEFAULT ('a''b;c')) PRIMARY KEY (Z)")
    assert split_ddl(text) == [
        "CREATE TABLE A ( X STRING(MAX) DEFAULT ('it\\'s; -- not a comment'), Y STRING(MAX) DEFAULT ('/* kept */'), ) "
        "PRIMARY KEY (X)",
        "CREATE INDEX I ON A(Y)",
        "CREATE TABLE B (Z STRING(MAX) DEFAULT ('a''b;c')) PRIMARY KEY (Z)",
    ]


def test_each_statement_knows_the_line_it_starts_on_past_comments_and_quoted_newlines():
    text = ("\ufeff-- header\n\n/* a block\n   comment */\n"  # lines 1-4
            "CREATE TABLE A (\n  X STRING(MAX) DEFAULT ('a;\nb'),\n) PRIMARY KEY (X);"  # lines 5-8
            " CREATE INDEX I ON A(X);\n"  # still line 8
            "\n   CREATE TABLE B (Y INT64) PRIMARY KEY (Y)\n")  # line 10, no closing semicolon
    assert [line for _, line in split_ddl_lines(text)] == [5, 8, 10]
    assert [statement for statement, _ in split_ddl_lines(text)] == split_ddl(text)


def test_the_last_statement_that_creates_a_name_is_the_one_that_stands():
    statements = ["CREATE TABLE Orders (Id INT64) PRIMARY KEY (Id)", "CREATE INDEX ByX ON Orders(Id)",
                  "DROP TABLE Orders", "CREATE TABLE `orders` (Id STRING(36)) PRIMARY KEY (Id)"]
    assert last_creating(statements, TABLE_KIND, "Orders") == 3
    assert last_creating(statements, INDEX_KIND, "ByX") == 1
    assert last_creating(statements, TABLE_KIND, "Order") is None


@pytest.mark.parametrize("statement", [
    "CREATE TABLE Orders (Id INT64) PRIMARY KEY (Id)",
    "create table IF NOT EXISTS orders (id bigint primary key)",
    "CREATE TABLE `Orders` (Id INT64) PRIMARY KEY (Id)",
    'CREATE TABLE "Orders" (id bigint primary key)',
])
def test_a_table_is_found_by_its_name_however_it_is_written(statement):
    assert creates(TABLE_KIND, "Orders").match(statement)
    assert not creates(TABLE_KIND, "Order").match(statement)  # a prefix of the name is another table
    assert creates(TABLE_KIND).match(statement).group(1).lower() == "orders"


def test_an_index_is_found_with_its_modifiers():
    assert creates(INDEX_KIND, "ByDay").match("CREATE UNIQUE NULL_FILTERED INDEX IF NOT EXISTS `ByDay` ON T(D)")
    assert not creates(INDEX_KIND, "ByDay").match("CREATE TABLE ByDay (D DATE) PRIMARY KEY (D)")


def test_several_kinds_at_once():
    any_kind = creates(f"{TABLE_KIND}|{INDEX_KIND}|{SEQUENCE_KIND}", "S")
    assert any_kind.match("CREATE SEQUENCE S OPTIONS (sequence_kind = 'bit_reversed_positive')")
    assert any_kind.match("CREATE NULL_FILTERED INDEX S ON T(X)") and any_kind.match("CREATE TABLE S (X INT64)")
    assert not any_kind.match("CREATE VIEW S AS SELECT 1")


@pytest.mark.parametrize("statement", [
    "CREATE TABLE sales.Orders (Id INT64) PRIMARY KEY (Id)",
    "CREATE TABLE `sales`.`Orders` (Id INT64) PRIMARY KEY (Id)",
    'CREATE TABLE "sales"."orders" (id bigint primary key)',
    "CREATE TABLE sales.`Orders` (Id INT64) PRIMARY KEY (Id)",
])
def test_a_table_of_a_named_schema_is_found_by_its_qualified_name(statement):
    assert creates(TABLE_KIND, "sales.Orders").match(statement)
    assert created_name(creates(TABLE_KIND).match(statement)).lower() == "sales.orders"
    assert not creates(TABLE_KIND, "Orders").match(statement)  # the default schema's Orders is another table
    assert not creates(TABLE_KIND, "sales.Order").match(statement)


def test_an_index_of_a_named_schema_is_found_with_its_schema_or_without_as_postgresql_writes_it():
    assert creates(INDEX_KIND, "sales.ByDay").match("CREATE INDEX `sales`.`ByDay` ON `sales`.`Orders`(D)")
    assert creates(INDEX_KIND, "sales.ByDay").match('CREATE INDEX "ByDay" ON sales."Orders"("D")')
    assert not creates(INDEX_KIND, "sales.ByDay").match("CREATE INDEX ByDayOfWeek ON sales.Orders(D)")


@pytest.mark.parametrize("rename", [
    "ALTER TABLE Mixtapes RENAME TO Playlists",
    "ALTER TABLE `Mixtapes` RENAME TO `Playlists`, ADD SYNONYM Mixtapes",
    "RENAME TABLE Other TO Others, Mixtapes TO Playlists",
    'ALTER TABLE "Mixtapes" RENAME TO "Playlists"',
])
def test_a_renamed_table_was_created_under_its_earlier_name(rename):
    statements = ["CREATE TABLE Mixtapes (Id INT64) PRIMARY KEY (Id)", "CREATE TABLE Other (Id INT64) PRIMARY KEY (Id)",
                  rename, "CREATE INDEX ByX ON Playlists(Id)"]
    assert creation(statements, TABLE_KIND, "Playlists") == (0, "Mixtapes")
    assert creation(statements, TABLE_KIND, "Mixtapes") is None  # renamed away
    assert last_creating(statements, TABLE_KIND, "Playlists") == 0
    assert creation(statements, INDEX_KIND, "ByX") == (3, "ByX")


def test_a_table_renamed_twice_and_a_name_taken_again_after_its_rename():
    statements = ["CREATE TABLE A (Id INT64) PRIMARY KEY (Id)", "ALTER TABLE A RENAME TO B",
                  "CREATE TABLE A (Id STRING(36)) PRIMARY KEY (Id)", "ALTER TABLE B RENAME TO C"]
    assert creation(statements, TABLE_KIND, "C") == (0, "A")
    assert creation(statements, TABLE_KIND, "A") == (2, "A")  # the new A, not the one renamed away
    assert creation(statements, TABLE_KIND, "B") is None  # no table is called B any more: it was renamed to C


def test_the_index_spanner_makes_for_a_foreign_key_comes_from_the_statement_that_declares_it():
    statements = ["CREATE TABLE Labels (Id INT64) PRIMARY KEY (Id)",
                  "CREATE TABLE Singers (Id INT64, LabelId INT64) PRIMARY KEY (Id)",
                  "ALTER TABLE Singers ADD CONSTRAINT FK FOREIGN KEY (LabelId) REFERENCES Labels (Id)",
                  "CREATE TABLE SingersBackup (Id INT64) PRIMARY KEY (Id)"]
    assert declaring_foreign_key(statements, "Singers") == 2
    assert declaring_foreign_key(statements, "Labels") == 2  # the referenced side's index
    assert declaring_foreign_key(statements, "SingersBackup") is None
    assert declaring_foreign_key(["CREATE TABLE `sales`.`Items` (Id INT64, CONSTRAINT F FOREIGN KEY (Id) "
                                  "REFERENCES Labels (Id)) PRIMARY KEY (Id)"], "sales.Items") == 0


def test_the_index_backing_one_foreign_key_comes_from_the_statement_that_declares_that_one():
    statements = [
        "CREATE TABLE Games (GameId STRING(36)) PRIMARY KEY (GameId)",
        "CREATE TABLE Items (PlayerId STRING(36), ItemId STRING(36), GameId STRING(36), "
        "FOREIGN KEY (GameId) REFERENCES Games (GameId)) PRIMARY KEY (PlayerId, ItemId)",
        "CREATE TABLE Trades (TradeId STRING(36), Seller STRING(36), FOREIGN KEY (Seller) REFERENCES Items (PlayerId)) "
        "PRIMARY KEY (TradeId)",
    ]
    # Items' index on GameId backs its own foreign key; its index on PlayerId, the one Trades declares
    assert declaring_foreign_key(statements, "Items", ("GameId", "PlayerId", "ItemId")) == 1
    assert declaring_foreign_key(statements, "Items", ("PlayerId",)) == 2
    assert declaring_foreign_key(statements, "Games", ("GameId",)) == 1
    assert declaring_foreign_key(statements, "Items") == 2  # no key: the last that names Items


def test_a_block_comment_nests_as_postgresql_nests_it_unless_it_never_closes_so():
    header = ("/*\n All lines that start with /* skip_on_open_source_pg */ are skipped elsewhere;\n*/\n"
              "create sequence s\n/* skip_on_open_source_pg */ bit_reversed_positive\n;\ncreate table t (id bigint);")
    assert split_ddl(header) == ["create sequence s bit_reversed_positive", "create table t (id bigint)"]
    # GoogleSQL does not nest: a comment whose nested reading never closes ends at the first */
    assert split_ddl("/* a /* b */ CREATE TABLE T (X INT64) PRIMARY KEY (X); /* c */ CREATE INDEX I ON T(X)") == [
        "CREATE TABLE T (X INT64) PRIMARY KEY (X)", "CREATE INDEX I ON T(X)"]


UP_AND_DOWN = [
    ("-- +goose Up\n-- +goose StatementBegin\nCREATE TABLE T (X INT64) PRIMARY KEY (X);\n-- +goose StatementEnd\n"
     "\n-- +goose Down\nDROP TABLE T;\n"),
    "-- +migrate Up\nCREATE TABLE T (X INT64) PRIMARY KEY (X);\n\n\n-- +migrate Down\nDROP TABLE T;\n",
    "-- migrate:up\nCREATE TABLE T (X INT64) PRIMARY KEY (X);\n\n\n-- migrate:down\nDROP TABLE T;\n",
    "-- +goose up\nCREATE TABLE T (X INT64) PRIMARY KEY (X);\n-- +goose down\nDROP TABLE T;\n",
    "CREATE TABLE T (X INT64) PRIMARY KEY (X);\n---- create above / drop below ----\nDROP TABLE T;\n",
]


@pytest.mark.parametrize("text", UP_AND_DOWN)
def test_a_migration_file_of_up_and_down_sections_gives_its_up_statements_on_their_own_lines(text):
    line = text.splitlines().index("CREATE TABLE T (X INT64) PRIMARY KEY (X);") + 1
    assert split_ddl_lines(text) == [("CREATE TABLE T (X INT64) PRIMARY KEY (X)", line)]
    assert up_sections(text).count("\n") == text.count("\n")


def test_up_sections_alternate_and_text_without_marks_is_kept_whole():
    text = ("-- header\nCREATE TABLE A (X INT64) PRIMARY KEY (X);\n-- migrate:up\nCREATE TABLE B (X INT64) "
            "PRIMARY KEY (X);\n-- migrate:down\nDROP TABLE B;\n-- migrate:up\nCREATE INDEX I ON B(X);\n")
    assert split_ddl(text) == ["CREATE TABLE A (X INT64) PRIMARY KEY (X)", "CREATE TABLE B (X INT64) PRIMARY KEY (X)",
                               "CREATE INDEX I ON B(X)"]
    plain = "-- goose up is not a mark: only a tool's own comment line is\nDROP TABLE T;\n"
    assert up_sections(plain) == plain and split_ddl(plain) == ["DROP TABLE T"]


def test_googlesql_hash_comments_are_dropped_as_wrench_files_write_them():
    text = ('# UPDATE Singers SET FirstName = "";\nCREATE TABLE A (X INT64, # the key\n'
            ' Y STRING(MAX) DEFAULT ("#1")) PRIMARY KEY (X);\n')
    assert split_ddl_lines(text) == [('CREATE TABLE A (X INT64, Y STRING(MAX) DEFAULT ("#1")) PRIMARY KEY (X)', 2)]


def test_goose_and_sql_migrate_end_a_statement_at_statement_end_without_a_semicolon():
    text = ("-- +goose Up\n-- +goose StatementBegin\nCREATE TABLE A (X INT64) PRIMARY KEY (X)\n-- +goose StatementEnd\n"
            "-- +goose StatementBegin\nCREATE INDEX I ON A(X)\n-- +goose StatementEnd\n"
            "-- +migrate StatementBegin\nCREATE INDEX J ON A(X);\n-- +migrate StatementEnd\n")
    assert split_ddl_lines(text) == [("CREATE TABLE A (X INT64) PRIMARY KEY (X)", 3), ("CREATE INDEX I ON A(X)", 6),
                                     ("CREATE INDEX J ON A(X)", 9)]
