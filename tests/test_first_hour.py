"""The first hour (issue 37), as a newcomer meets it: a clone of the repository, its README read
literally (the pictures, the try-out, the BotFather steps, the two commands), deploy/README.md
from the simple case up, the LICENSE, and the shipped Caddyfile proxying everything the bot
serves behind it."""

from __future__ import annotations

import re
import shutil
import socket
import subprocess
import sys
import time
import tomllib
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TEST_COMMAND = "python3 -m venv .venv && .venv/bin/pip install -e '.[test]' && .venv/bin/pytest"


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh clone of the repository (its committed state), as a newcomer gets it."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    where = tmp_path_factory.mktemp("clone") / "mahjong-ledger"
    subprocess.run(["git", "clone", "--quiet", "--no-hardlinks", str(ROOT), str(where)], check=True,
                   capture_output=True, timeout=120)
    return where


def commands(readme: str) -> list[str]:
    """The README's commands for a fresh machine: the indented lines that make the virtualenv."""
    return [line.strip() for line in readme.splitlines()
            if line.startswith("    ") and line.strip().startswith("python3 -m venv")]


def section(text: str, heading: str) -> str:
    """The part of a Markdown page under the `## ` heading that starts with `heading`."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines)
                 if line.startswith("## ") and line[3:].startswith(heading))
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    return "\n".join(lines[start:end])


def test_the_readme_shows_the_chat_and_the_page_first(clone: Path) -> None:
    readme = (clone / "README.md").read_text(encoding="utf-8")
    first_heading = readme.index("\n## ")
    pictures = re.findall(r'<img src="([^"]+)"', readme[:first_heading])
    assert pictures == ["docs/img/chat.png", "docs/img/page.png"], pictures
    for picture in pictures:
        data = (clone / picture).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000, picture
    assert "tests/screenshots.py" in readme[:first_heading]  # how they are made


def test_the_readme_has_two_commands_for_a_fresh_machine(clone: Path) -> None:
    readme = (clone / "README.md").read_text(encoding="utf-8")
    run, test = commands(readme)  # exactly two
    assert run == "python3 -m venv .venv && .venv/bin/pip install -e '.[mcr]' && .venv/bin/mjledger"
    assert test == TEST_COMMAND
    assert TEST_COMMAND in (clone / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert readme.index(run) < readme.index("## Your own bot")  # the try-out comes first
    assert "## The rooms" not in readme and "plumbing/" not in readme  # the layout lives elsewhere
    assert "## The rooms at a glance" in (clone / "docs" / "layout.md").read_text(encoding="utf-8")


def test_the_readme_says_how_to_tell_a_missing_compiler_and_what_to_do(clone: Path) -> None:
    readme = (clone / "README.md").read_text(encoding="utf-8")
    tryout = section(readme, "Try it")
    assert "g++ --version" in tryout and "command 'g++' failed" in tryout
    assert "sudo apt install g++" in tryout and "`.venv/bin/pip install -e .`" in tryout
    # the hint the bot and the page give names the command the README runs
    from scoring.variants.mcr.counting import HOW_TO_COUNT

    hint = re.search(r"\.venv/bin/pip install -e '\.\[mcr\]'", HOW_TO_COUNT)
    assert hint is not None and hint.group(0) in commands(readme)[0], HOW_TO_COUNT


def test_the_readme_walks_through_botfather_and_the_first_evening(clone: Path) -> None:
    steps = section((clone / "README.md").read_text(encoding="utf-8"), "Your own bot")
    for words in ("@BotFather", "/newbot", "token", "Privacy mode", "/setprivacy",
                  "TELEGRAM_BOT_TOKEN=", "Add it to the group", "needs no\n   admin rights",
                  "/new guiyang", "**Join**", "/hand", "/hu", "/settle", "/help"):
        assert words in steps, words
    # in that order: create, privacy, start, add, type
    order = [steps.index(w) for w in ("/newbot", "Privacy mode", "TELEGRAM_BOT_TOKEN=",
                                      "Add it to the group", "/new guiyang")]
    assert order == sorted(order), order
    styles = re.search(r"`/new guiyang` \(the style is one of ([^)]*)\)", steps)
    assert styles is not None
    from scoring.variants import ORDER

    named = set(re.findall(r"`(\w+)`", styles.group(1)))
    assert named == set(ORDER), named  # every shipped style, by the name /new takes


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_the_try_out_starts_in_the_clone_as_the_readme_says(clone: Path) -> None:
    """The try-out's `mjledger` (here `python -m bot` from the clone, its packages already
    installed in this interpreter), on another port as the README offers: one line, the page at
    /app/, the books in mjledger.sqlite3 where it ran."""
    readme = (clone / "README.md").read_text(encoding="utf-8")
    tryout = section(readme, "Try it")
    assert "http://127.0.0.1:8080/app/" in tryout and "--port 8081" in tryout
    assert "`mjledger.sqlite3`" in tryout
    port = free_port()
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(clone), "HOME": str(clone)}
    proc = subprocess.Popen([sys.executable, "-m", "bot", "--port", str(port)], cwd=clone, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert f"serving the ledger's page alone at http://127.0.0.1:{port}/app/" in line, line
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/app/", timeout=10) as r:
                    assert r.status == 200 and "Mahjong Ledger" in r.read().decode()
                break
            except OSError:
                assert time.monotonic() < deadline
                time.sleep(0.2)
        assert (clone / "mjledger.sqlite3").is_file()
    finally:
        proc.terminate()
        out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0 and out == "" and err == "", (proc.returncode, out, err)


def test_deploy_starts_simple_and_then_grows(clone: Path) -> None:
    text = (clone / "deploy" / "README.md").read_text(encoding="utf-8")
    headings = [line[3:] for line in text.splitlines() if line.startswith("## ")]
    assert headings[0].startswith("The simple case: one machine, polling, SQLite"), headings
    simple = section(text, "The simple case")
    assert "systemd" in simple and "docker run" in simple and "PostgreSQL" not in simple
    grow = next(i for i, h in enumerate(headings) if "PostgreSQL" in h)
    assert grow > 0 and "Caddy" in headings[grow], headings
    # the install builds the Chinese Official counter, from an address the reader fills in
    assert ".venv/bin/pip install '.[mcr]'" in simple
    assert re.search(r"^    REPO=https://\S+\.git ", simple, re.MULTILINE)
    assert 'git clone "$REPO" /opt/mjledger/app' in simple
    unit = (clone / "deploy" / "mjledger.service").read_text(encoding="utf-8")
    assert ".venv/bin/pip install '.[mcr]'" in unit and "<repo>" not in unit


def test_a_sqlite_url_is_written_one_way(clone: Path) -> None:
    pages = [clone / "README.md", clone / "deploy" / "README.md", *sorted((clone / "docs").rglob("*.md"))]
    for page in pages:
        text = page.read_text(encoding="utf-8")
        assert "sqlite+aiosqlite" not in text, page
        for url in re.findall(r"sqlite:/+[^\s`)]*", text):
            assert url.startswith("sqlite:///") and url.endswith(".sqlite3"), (page, url)
    settings = (clone / "deploy" / "README.md").read_text(encoding="utf-8")
    from db.config import DEFAULT_URL

    default = DEFAULT_URL.split("///", 1)[1]
    assert f"`sqlite:///{default}` (the default" in settings


def test_the_license_is_the_mit_license_pyproject_names(clone: Path) -> None:
    text = (clone / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License\n") and "Permission is hereby granted, free of charge" in text
    project = tomllib.loads((clone / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["license"] == {"text": "MIT"}


# -- the Caddyfile ---------------------------------------------------------------------------

def caddy_routes(text: str) -> list[tuple[list[str], str]]:
    """The site block's `reverse_proxy` directives: (the paths they match, the upstreams),
    with named `@name path …` matchers resolved. Comments and sub-blocks' options are skipped."""
    lines = [line.split("#", 1)[0].strip() for line in text.splitlines()]
    named: dict[str, list[str]] = {}
    routes: list[tuple[list[str], str]] = []
    depth = 0
    for line in lines:
        if not line:
            continue
        if depth == 1:
            words = line.rstrip("{").split()
            if words[0].startswith("@") and words[1] == "path":
                named[words[0]] = words[2:]
            elif words[0] == "reverse_proxy":
                matcher, upstream = (words[1], words[2]) if words[1].startswith(("/", "@")) \
                    else ("*", words[1])
                paths = named[matcher] if matcher.startswith("@") else [matcher]
                routes.append((paths, upstream))
        depth += line.count("{") - line.count("}")  # a {$PLACEHOLDER} balances itself
    assert depth == 0, "unbalanced braces"
    return routes


def matches(pattern: str, path: str) -> bool:
    """Caddy's path matcher: exact, or a prefix ending in `*`."""
    return path.startswith(pattern[:-1]) if pattern.endswith("*") else path == pattern


def test_caddy_proxies_everything_the_bot_serves_behind_it() -> None:
    """Every route of the bot's HTTP side in webhook mode (the webhook, the health check, the
    Mini App's page, files and API, as the app registers them) reaches the workers."""
    from aiohttp import web

    from bot.web.api import add_routes
    from bot.web.page import add_page_routes

    app = web.Application()
    add_routes(app, None, None)  # type: ignore[arg-type]  # the routes only
    add_page_routes(app)
    served = {re.sub(r"\{[^}]*\}", "x", r.resource.canonical) for r in app.router.routes()
              if r.resource is not None}
    served |= {"/telegram", "/healthz"}
    assert {"/app", "/app/", "/app/api/state", "/app/api/preview"} <= served, served
    routes = caddy_routes((ROOT / "deploy" / "Caddyfile").read_text(encoding="utf-8"))
    for path in sorted(served):
        upstreams = {up for paths, up in routes if any(matches(p, path) for p in paths)}
        assert upstreams == {"{$BOT_UPSTREAMS:127.0.0.1:8080}"}, (path, routes)
    assert not any(matches(p, "/") for paths, _ in routes for p in paths)  # nothing else is open


async def test_the_pictures_are_made_from_the_real_bot_and_page(tmp_path: Path) -> None:
    """tests/screenshots.py, which made docs/img/, still makes both pictures: the bot's
    messages of a first evening and the page after a hand (the browser: tests/web/browser.py)."""
    from tests.screenshots import make

    made = await make(tmp_path)
    assert [p.name for p in made] == ["chat.png", "page.png"]
    for path in made:
        data = path.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000, path
