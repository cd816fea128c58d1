"""What the page's server refuses before a handler reads a request, and the headers every answer
carries (docs/page.md, "What the page accepts").

- The API (/app/api/) takes only `application/json` bodies (the photo of a hand: a picture's
  own type, image/…) and only from the page's own origin: an HTML form on another site can
  send text/plain, urlencoded or multipart without asking first, and the browser replays basic
  auth's password with it, so neither the local page nor its password stops such a form; a
  JSON body, or a picture's type, makes the browser ask first (CORS), which this server never
  allows. A foreign `Origin` or `Sec-Fetch-Site` is refused outright.
- The local page answers only to the names it is served at (`allowed_hosts`): DNS rebinding
  gives another site's page this machine's address under that site's name, and with it the
  books; an IP address or localhost cannot be rebound.
- `Throttle`: failed passwords per client, with a doubling wait after the first few.
- `protect`: Content-Security-Policy, nosniff, Referrer-Policy, a frame policy (the local page
  in no frame; the Mini App only in Telegram's web clients), and a Server header without
  versions."""

from __future__ import annotations

import ipaddress
import json
import math
import socket
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from aiohttp import web, web_response

from ..plumbing.config import is_loopback

API = "/app/api/"
SERVER = "Mahjong Ledger"
# Telegram's web clients, which frame the Mini App (web.telegram.org/k/ and /a/; the older
# names still answer); its apps open the page in a web view of their own, not a frame
TELEGRAM_WEB = ("https://web.telegram.org", "https://webk.telegram.org", "https://webz.telegram.org")
TELEGRAM_SCRIPT = "https://telegram.org"  # telegram-web-app.js, loaded only inside Telegram
CROSS_SITE = ("cross-site", "same-site")  # Sec-Fetch-Site values of another origin
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@dataclass(frozen=True)
class Policy:
    """Who may frame the page (none: no frame) and where its scripts may come from beyond its
    own origin."""

    frame_ancestors: tuple[str, ...] = ()
    scripts: tuple[str, ...] = ()


LOCAL = Policy()
MINI_APP = Policy(frame_ancestors=TELEGRAM_WEB, scripts=(TELEGRAM_SCRIPT,))


def content_security_policy(policy: Policy) -> str:
    """Scripts, fetches, images and fonts from the page's origin only (and Telegram's script in
    the Mini App); no plugins, no <base>, no form posts. Styles allow inline ones: the page
    sets a few style attributes and Telegram's theme, and Telegram's script adds a <style> of
    the web client's in its frame; a style cannot run code."""
    frames = " ".join(policy.frame_ancestors) or "'none'"
    scripts = " ".join(("'self'", *policy.scripts))
    return "; ".join((
        "default-src 'none'", f"script-src {scripts}",
        "style-src 'self' 'unsafe-inline'", "img-src 'self'", "font-src 'self'",
        "connect-src 'self'", "manifest-src 'self'", "base-uri 'none'", "form-action 'none'",
        f"frame-ancestors {frames}"))


def protect(app: web.Application, policy: Policy) -> None:
    """Every answer of `app` gets the headers, errors and 404s included."""
    headers = {"Content-Security-Policy": content_security_policy(policy),
               "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer",
               "Server": SERVER}
    if not policy.frame_ancestors:
        headers["X-Frame-Options"] = "DENY"  # for browsers older than frame-ancestors

    async def add(_: web.Request, response: web.StreamResponse) -> None:
        response.headers.update(headers)

    app.on_response_prepare.append(add)
    # An answer aiohttp writes itself, to a request it could not parse, comes before any app
    # sees it and would name Python's and aiohttp's versions: this is the name it uses then.
    web_response.SERVER_SOFTWARE = SERVER


def refusal(status: int, text: str, code: str) -> web.Response:
    return web.json_response({"error": text, "code": code}, status=status)


def _netloc(value: str) -> str:
    """host[:port] as compared: lower case, the scheme's default port dropped."""
    parts = urlsplit(value if "//" in value else f"//{value}")
    try:
        port = parts.port
    except ValueError:
        return ""
    host = (parts.hostname or "").rstrip(".")
    host = f"[{host}]" if ":" in host else host
    default = {"http": 80, "https": 443}.get(parts.scheme)
    return host if port is None or port == default else f"{host}:{port}"


def same_origin(public_url: str | None = None) -> Any:
    """The API answers only the page's own origin and JSON bodies. `Origin` must be the origin
    the request was sent to (its Host; behind a proxy also `public_url`); a request without
    Origin comes from no web page (curl, a script). Refused: 403 `cross_site`, 415 `not_json`."""
    public = _netloc(public_url) if public_url else None

    @web.middleware
    async def check(request: web.Request, handler: Handler) -> web.StreamResponse:
        if not request.path.startswith(API):
            return await handler(request)  # the page itself: a link from anywhere opens it
        origin = request.headers.get("Origin")
        foreign = origin is not None and (
            origin == "null" or _netloc(origin) not in (_netloc(request.headers.get("Host", "")), public))
        if foreign or request.headers.get("Sec-Fetch-Site", "").lower() in CROSS_SITE:
            return refusal(403, "requests from another site are refused", "cross_site")
        if request.method not in ("GET", "HEAD") and not _body_type_ok(request):
            return refusal(415, "the body must be JSON (Content-Type: application/json)",
                           "not_json")
        return await handler(request)

    return check


# The one API path whose body is no JSON: a photo, sent raw with its own type (image/jpeg …),
# which a browser also sends only after asking (CORS) when another site's page tries; never
# multipart, text/plain or urlencoded, which a form on another site sends without asking.
PICTURE_PATH = API + "photo"
PICTURE_TYPES = ("image/", "application/octet-stream")


def _body_type_ok(request: web.Request) -> bool:
    """JSON, or for the photo a picture's type given explicitly (aiohttp reads a missing
    Content-Type as application/octet-stream, and a body without one needs no asking)."""
    if request.content_type == "application/json":
        return True
    return (request.path == PICTURE_PATH and "Content-Type" in request.headers
            and request.content_type.startswith(PICTURE_TYPES))


def allowed_hosts(listen: str, names: Iterable[str] = ()) -> frozenset[str]:
    """The names the local page answers to, besides IP addresses: localhost, the address it
    listens on when that is a name, `names` (WEB_HOSTS), and, listening beyond loopback, this
    machine's own names."""
    out = {"localhost", *(n.strip().lower().rstrip(".") for n in names if n.strip())}
    if not _is_ip(listen):
        out.add(listen.lower().rstrip("."))
    if not is_loopback(listen):
        machine = socket.gethostname().lower()
        out |= {machine, f"{machine}.local", socket.getfqdn().lower()}
    return frozenset(n for n in out if n)


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return True


def host_check(names: frozenset[str]) -> Any:
    """Answer only requests whose Host is an IP address or one of `names` (403 otherwise)."""

    @web.middleware
    async def check(request: web.Request, handler: Handler) -> web.StreamResponse:
        try:
            name = (urlsplit(f"//{request.headers.get('Host', '')}").hostname or "").rstrip(".")
        except ValueError:  # not a host name at all ("[x")
            name = ""
        if not (_is_ip(name) or name in names):
            return web.Response(status=403, text=(
                f"This page does not answer to the name {name[:100]!r}: open it at the address "
                "mjledger printed, or add the name to WEB_HOSTS (docs/page.md)."))
        return await handler(request)

    return check


class Throttle:
    """Failed passwords per client (an IPv4 address, an IPv6 /64: one machine can use a whole
    network). The first FREE failures cost nothing; each further one makes the client wait,
    1 s, then twice as long each time, at most LONGEST, during which every request of that
    client is refused unread (so a guess during the wait learns nothing). A right password
    forgets the failures; so do QUIET seconds without one. At most KEPT clients are kept: the
    oldest are dropped first."""

    FREE = 5
    LONGEST = 900.0  # seconds
    QUIET = 3600.0
    KEPT = 10_000

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._failed: dict[str, tuple[int, float]] = {}  # client → (failures, last failure)

    def __len__(self) -> int:
        return len(self._failed)

    @staticmethod
    def client(remote: str | None) -> str:
        try:
            ip = ipaddress.ip_address(remote or "")
        except ValueError:
            return remote or ""
        if isinstance(ip, ipaddress.IPv6Address):
            if ip.ipv4_mapped is not None:  # an IPv4 client of a dual-stack socket
                return str(ip.ipv4_mapped)
            return str(ipaddress.ip_network(f"{ip}/64", strict=False))
        return str(ip)

    def wait(self, remote: str | None) -> float:
        """Seconds this client must still wait before its password is read (0: none)."""
        count, last = self._failed.get(self.client(remote), (0, 0.0))
        if count < self.FREE:
            return 0.0
        return max(0.0, last + self._delay(count) - self._clock())

    def _delay(self, count: int) -> float:
        return min(self.LONGEST, 2.0 ** (count - self.FREE))

    def failed(self, remote: str | None) -> None:
        key, now = self.client(remote), self._clock()
        count, last = self._failed.pop(key, (0, now))
        if now - last > self.QUIET:
            count = 0
        self._failed[key] = (count + 1, now)  # last in the dict: the newest
        while len(self._failed) > self.KEPT:
            del self._failed[next(iter(self._failed))]

    def passed(self, remote: str | None) -> None:
        self._failed.pop(self.client(remote), None)


def retry_after(seconds: float) -> str:
    return str(max(1, math.ceil(seconds)))


def locked_out(seconds: float) -> web.Response:
    return web.Response(status=429, headers={"Retry-After": retry_after(seconds)},
                        text=json.dumps({"error": f"too many wrong passwords: try again in "
                                                  f"{retry_after(seconds)} s",
                                         "code": "too_many_tries"}),
                        content_type="application/json")
