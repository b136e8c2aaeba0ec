"""Bearer-token guard for the mutating endpoints (read-only endpoints need nothing)."""

from __future__ import annotations

import hmac

from fastapi import Header, HTTPException, Request


def require_token(request: Request, authorization: str | None = Header(default=None)) -> None:
    """401 without a valid ``Authorization: Bearer <token>``; 403 when no token is configured."""
    expected: str | None = request.app.state.api_token
    if not expected:
        raise HTTPException(
            403, "mutating endpoints are disabled: start the API with DICODE_API_TOKEN set"
        )
    scheme, _, given = (authorization or "").partition(" ")
    if scheme.lower() != "bearer" or not given:
        raise HTTPException(
            401, "missing bearer token (Authorization: Bearer <token>)",
            headers={"WWW-Authenticate": "Bearer"},
        )
    # Compared as bytes: a header with non-ASCII characters is just another wrong token.
    if not hmac.compare_digest(given.strip().encode("utf-8"), expected.encode("utf-8")):
        raise HTTPException(401, "invalid bearer token", headers={"WWW-Authenticate": "Bearer"})
