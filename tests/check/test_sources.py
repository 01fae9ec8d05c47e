"""Where the check's statements come from: files, migration folders, Terraform files."""

from __future__ import annotations

import re

import pytest

from keybench.check.sources import ddl_files, read_statements
from keybench.errors import KeybenchError


def _files(folder, files: dict[str, str]):
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    return folder


def test_a_folder_of_migrations_is_applied_in_its_tools_order_without_the_files_that_undo_one(tmp_path):
    names = ["V10__z.sql", "R__views.sql", "V2__y.sql", "V1_1__b.sql", "V1.2__c.sql", "V1__a.sql", "U2__y.sql",
             "2024-01-02_orders/up.sql", "2024-01-02_orders/down.sql", "3_c.up.sql", "3_c.down.sql",
             "4_d.rollback.sql", "V3__shut_down.sql", "notes.txt"]
    folder = _files(tmp_path / "db", dict.fromkeys(names, "CREATE TABLE T (X INT64) PRIMARY KEY (X);\n"))
    assert [f.relative_to(folder).as_posix() for f in ddl_files(folder)] == [
        "2024-01-02_orders/up.sql", "3_c.up.sql", "V1__a.sql", "V1_1__b.sql", "V1.2__c.sql", "V2__y.sql",
        "V3__shut_down.sql", "V10__z.sql", "R__views.sql"]
    # Spanner's own tools name DDL files .ddl or .sdl: read where a folder has no .sql file
    ddl = _files(tmp_path / "ddl", dict.fromkeys(["2_b.DDL", "10_c.sdl", "1_a.ddl", "x.txt"], "DROP TABLE T;\n"))
    assert [f.name for f in ddl_files(ddl)] == ["1_a.ddl", "2_b.DDL", "10_c.sdl"]




# As Terraform configurations write Spanner DDL (shapes from public ones): quoted strings with
# escapes, indented heredocs, comments between elements, and a database whose list is a variable.
TERRAFORM = r'''
resource "google_spanner_instance" "main" {
  name   = "main"
  config = "regional-us-central1"  # { not a block
}

resource "google_spanner_database" "automotive" {
  instance = google_spanner_instance.main.name
  name     = "automotive"
  labels   = { ddl = "not this one" }

  ddl = [
    # parents first
    "CREATE TABLE Vehicles (VehicleId STRING(36) NOT NULL, L STRING(9) DEFAULT (\"a\\tb\")) PRIMARY KEY (VehicleId)",
    <<-EOT
    CREATE TABLE Telemetry (
      VehicleId STRING(36) NOT NULL,
      At TIMESTAMP NOT NULL,
    ) PRIMARY KEY (VehicleId, At),
      INTERLEAVE IN PARENT Vehicles ON DELETE CASCADE
    EOT
    , /* the index */ <<EOT
CREATE INDEX TelemetryByTime ON Telemetry(At)
EOT
  ]
  deletion_protection = false
}

resource "google_spanner_database" "from_variable" {
  instance = google_spanner_instance.main.name
  name     = "other"
  ddl      = var.ddl
}
'''


def test_a_terraform_file_gives_each_databases_ddl_as_terraform_reads_it(tmp_path):
    main = _files(tmp_path, {"main.tf": TERRAFORM}) / "main.tf"
    read = read_statements(main)
    assert read.statements == [
        'CREATE TABLE Vehicles (VehicleId STRING(36) NOT NULL, L STRING(9) DEFAULT ("a\\tb")) '
        "PRIMARY KEY (VehicleId)",
        "CREATE TABLE Telemetry ( VehicleId STRING(36) NOT NULL, At TIMESTAMP NOT NULL, ) PRIMARY KEY (VehicleId, At), "
        "INTERLEAVE IN PARENT Vehicles ON DELETE CASCADE",
        "CREATE INDEX TelemetryByTime ON Telemetry(At)"]
    lines = TERRAFORM.splitlines()
    assert [line for _, line in read.places] == [
        next(n for n, text in enumerate(lines, 1) if first in text)
        for first in ('"CREATE TABLE Vehicles', "CREATE TABLE Telemetry (", "CREATE INDEX TelemetryByTime")]
    # the error's prefix names the file: the label, the database and the statement
    assert read.labels is not None and read.labels[2] == "google_spanner_database.automotive statement 3"
    assert read_statements(main, (main,)).labels[5] == f"{main} google_spanner_database.automotive statement 3"
    [note] = read.notes
    assert "google_spanner_database.from_variable left out: its ddl is var.ddl" in note


@pytest.mark.parametrize("text, message", [
    ('resource "google_spanner_database" "d" {\n  ddl = var.ddl\n}\n', "no DDL statement in it (" ),
    ('resource "google_spanner_instance" "i" {\n  name = "i"\n}\n', "no google_spanner_database with a ddl list"),
    ('resource "google_spanner_database" "d" {\n  ddl = ["CREATE TABLE ${var.t} (X INT64) PRIMARY KEY (X)"]\n}\n',
     "statement 1 (line 2) is built with a Terraform interpolation"),
    ('resource "google_spanner_database" "d" {\n  ddl = [file("schema.sql")]\n}\n',
     'its ddl list holds file("schema.sql")]'),
    ('resource "google_spanner_database" "d" {\n  ddl = [<<EOT\nCREATE TABLE T\n}\n', "a heredoc <<EOT never closes"),
])
def test_a_terraform_file_without_ddl_written_in_it_is_one_clear_error(tmp_path, text, message):
    main = _files(tmp_path, {"main.tf": text}) / "main.tf"
    with pytest.raises(KeybenchError, match=re.escape(message)):
        read_statements(main)


def test_files_given_beside_a_folder_are_named_by_their_paths(tmp_path):
    schema = _files(tmp_path, {"schema.sql": "CREATE TABLE A (X INT64) PRIMARY KEY (X);\n"}) / "schema.sql"
    folder = _files(tmp_path / "migrations", {"0002.sql": "CREATE TABLE B (X INT64) PRIMARY KEY (X);\n"})
    assert read_statements(schema, (folder,)).labels == [
        f"{schema} statement 1", f"{folder / '0002.sql'} statement 1"]
    assert read_statements(folder).labels == ["0002.sql statement 1"]


def test_a_migration_that_links_nowhere_is_an_error_not_left_out(tmp_path):
    folder = _files(tmp_path / "db", {"001_init.sql": "CREATE TABLE A (X INT64) PRIMARY KEY (X);\n"})
    (folder / "002_missing.sql").symlink_to(tmp_path / "nowhere.sql")
    with pytest.raises(KeybenchError, match="002_missing.sql: no such file"):
        read_statements(folder)
    (folder / "002_missing.sql").unlink()
    (folder / "002_a.sql").symlink_to(folder / "002_b.sql")
    (folder / "002_b.sql").symlink_to(folder / "002_a.sql")
    with pytest.raises(KeybenchError, match="cannot be read"):
        read_statements(folder)
