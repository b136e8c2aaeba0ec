"""The repository split by aggregate: each module owns one group of tables and is the only
code that writes them (`archive_db.repository.ArchiveRepository` is the facade over all)."""
