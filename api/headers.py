"""Security headers: ``nosniff`` on every answer; on every HTML answer a strict Content-Security-Policy (this
origin only, no inline script or style, no framing) and a Referrer-Policy.

Design: docs/web.md, "Security headers"
"""

from __future__ import annotations

import base64
import hashlib
import re

from flask import Flask
from werkzeug.wrappers import Response

INLINE_SCRIPT = re.compile(rb"<script>(.*?)</script>", re.DOTALL)
REFERRER_POLICY = "same-origin"


def content_security_policy(inline_scripts: list[bytes] | tuple[bytes, ...] = ()) -> str:
    """The policy of an HTML answer; `inline_scripts` are allowed by hash (none on our own pages).

    >>> policy = content_security_policy()
    >>> "script-src 'self';" in policy and "frame-ancestors 'none'" in policy and "unsafe" not in policy
    True
    """
    hashes = "".join(f" 'sha256-{base64.b64encode(hashlib.sha256(script).digest()).decode()}'"
                     for script in inline_scripts)
    return ("default-src 'self'; "
            f"script-src 'self'{hashes}; "
            "style-src 'self'; "
            "img-src 'self' data:; "  # the favicon is a data: URI
            "connect-src 'self'; "
            "object-src 'none'; "
            "base-uri 'none'; "
            "form-action 'self'; "
            "frame-ancestors 'none'")


def secure(response: Response) -> Response:
    response.headers["X-Content-Type-Options"] = "nosniff"
    if response.mimetype == "text/html":
        scripts = INLINE_SCRIPT.findall(response.get_data()) if not response.direct_passthrough else []
        response.headers["Content-Security-Policy"] = content_security_policy(scripts)
        response.headers["X-Frame-Options"] = "DENY"  # frame-ancestors for browsers without CSP 2
        response.headers["Referrer-Policy"] = REFERRER_POLICY
    return response


def install(app: Flask) -> None:
    app.after_request(secure)
