"""The repository split by aggregate: each module owns one group of tables and is the only
code that writes them (`archive_db.repository.ArchiveRepository` opens the
database and holds one of each)."""
