"""Bearer-token guard for the mutating endpoints (read-only endpoints need nothing).

Declared with FastAPI's `HTTPBearer`, so `/docs` shows the scheme and its Authorize button.
"""

from __future__ import annotations

import hmac
from typing import Annotated

from fastapi import Depends, HTTPException, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

bearer = HTTPBearer(auto_error=False, description="the API's DICODE_API_TOKEN")


def require_token(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
) -> None:
    """401 without a valid ``Authorization: Bearer <token>``; 403 when no token is configured."""
    expected: str | None = request.app.state.api_token
    if not expected:
        raise HTTPException(
            403, "mutating endpoints are disabled: start the API with DICODE_API_TOKEN set"
        )
    if credentials is None:
        raise HTTPException(
            401,
            "missing bearer token (Authorization: Bearer <token>)",
            headers={"WWW-Authenticate": "Bearer"},
        )
    # Compared as bytes: a header with non-ASCII characters is just another wrong token.
    given = credentials.credentials.strip().encode("utf-8")
    if not hmac.compare_digest(given, expected.encode("utf-8")):
        raise HTTPException(401, "invalid bearer token", headers={"WWW-Authenticate": "Bearer"})
