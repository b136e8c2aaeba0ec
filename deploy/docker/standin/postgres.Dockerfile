# A local stand-in for the postgres image when no registry answers (deploy/compose-check.sh):
# PostgreSQL 15 from Debian bookworm behind an entrypoint that reads the same variables
# (POSTGRES_USER, POSTGRES_PASSWORD, POSTGRES_DB) and keeps data in the same folder.
ARG BASE_IMAGE=debian:bookworm-slim
FROM ${BASE_IMAGE}
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql-15 \
    && rm -rf /var/lib/apt/lists/*
COPY postgres-entrypoint.sh /usr/local/bin/postgres-entrypoint.sh
ENV PATH=/usr/lib/postgresql/15/bin:$PATH PGDATA=/var/lib/postgresql/data
RUN mkdir -p "$PGDATA" && chown -R postgres:postgres /var/lib/postgresql
# Like the official image: SIGINT is PostgreSQL's fast shutdown.
STOPSIGNAL SIGINT
EXPOSE 5432
ENTRYPOINT ["/bin/sh", "/usr/local/bin/postgres-entrypoint.sh"]
