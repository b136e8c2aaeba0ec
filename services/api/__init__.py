"""The REST API (FastAPI) over the archive, plus a small web page at ``/``."""
