"""The packages' import graphs (read with `ast`, not by importing): no cycles, imports inside
functions and under TYPE_CHECKING included; no module imports another's private names; and bot/
keeps its rooms' order (bot/__init__.py)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("bot", "db", "scoring")
# bot's rooms, lowest first: a module imports only its own room or those below it. Modules at
# bot/'s top (app, runner, __main__: the composition root) are in no room.
ROOMS = {"plumbing": 0, "view": 1, "entry": 2, "photo": 2, "chat": 3, "books": 4, "commands": 5,
         "web": 5}
# The use cases (bot/books) speak to no front end: no Telegram, no HTTP, no translations.
FRONT_ENDS = ("telegram", "aiohttp", "bot.view.i18n", "bot.plumbing.messages")


def modules(package: str) -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its own name)."""
    found = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def imports(name: str, path: Path, known: dict[str, Path]) -> list[tuple[str, str]]:
    """(module imported, name taken from it or "") for every import statement in the file,
    relative ones resolved; `from pkg import mod` counts as importing pkg.mod."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            out += [(alias.name, "") for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                source = ".".join([*base, *([node.module] if node.module else [])])
            else:
                source = node.module or ""
            for alias in node.names:
                sub = f"{source}.{alias.name}"
                out.append((sub, "") if sub in known else (source, alias.name))
    return out


def graph(package: str) -> dict[str, set[str]]:
    """Module → the package's modules it imports (a package's import of its parent excluded:
    importing a.b.c runs a/__init__ first anyway, not a dependency of one's own)."""
    known = modules(package)
    edges: dict[str, set[str]] = {}
    for name, path in known.items():
        edges[name] = set()
        for target, _ in imports(name, path, known):
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name and not name.startswith(target + "."):
                edges[name].add(target)
    return edges


def find_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the graph as a path that ends where it starts, or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt):], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        path.pop()
        state[node] = 2
        return None

    for start in sorted(edges):
        if start not in state and (found := visit(start)):
            return found
    return None


def test_find_cycle_finds_one() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


@pytest.mark.parametrize("package", PACKAGES)
def test_no_import_cycle(package: str) -> None:
    cycle = find_cycle(graph(package))
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


@pytest.mark.parametrize("package", PACKAGES)
def test_no_private_names_across_modules(package: str) -> None:
    known = {name: path for p in (*PACKAGES, "tests") for name, path in modules(p).items()}
    taken = []
    for name, path in modules(package).items():
        for source, imported in imports(name, path, known):
            if (imported.startswith("_") and not imported.startswith("__") and source != name
                    and source.split(".")[0] in PACKAGES):
                taken.append(f"{name} imports {source}.{imported}")
    assert not taken, "\n".join(taken)


def room(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and parts[1] in ROOMS) else None


def test_bot_rooms_exist() -> None:
    assert {room(m) for m in modules("bot")} - {None} == set(ROOMS)


def test_bot_imports_run_down_the_rooms() -> None:
    wrong = []
    for module, targets in graph("bot").items():
        here = room(module)
        for target in targets:
            there = room(target)
            if there == "commands" and here is not None:
                wrong.append(f"{module} imports the command module {target} (only the root may)")
            elif here is not None and there is not None and here != there and ROOMS[there] > ROOMS[here]:
                wrong.append(f"{module} ({here}) imports {target} ({there}), a room above it")
    assert not wrong, "\n".join(wrong)


def test_the_use_cases_know_no_front_end() -> None:
    known = modules("bot")
    wrong = [f"{name} imports {target}" for name, path in known.items() if room(name) == "books"
             for target, _ in imports(name, path, known)
             if any(target == f or target.startswith(f + ".") for f in FRONT_ENDS)]
    assert not wrong, "\n".join(wrong)


def test_the_page_takes_nothing_from_the_wizard() -> None:
    """The page books and checks hands through bot/books and bot/entry, not the chat's wizard."""
    wrong = [f"{module} imports {target}" for module, targets in graph("bot").items()
             if room(module) == "web" for target in targets
             if target == "bot.entry.wizard" or target.startswith("bot.entry.wizard.")]
    assert not wrong, "\n".join(wrong)


# -- types across the edges -----------------------------------------------------------------------

# A session is a db Session (or the SessionView read with the update), a translator the
# Translator of bot/view/i18n.py: a parameter by these names says so, never Any (nor nothing).
TYPED_PARAMETERS = ("session", "t", "translator")


def loosely_typed(source: str, where: str = "") -> list[str]:
    """Parameters named in TYPED_PARAMETERS left unannotated, or annotated with `Any` anywhere in
    their annotation; a translator (`t`, `translator`) also as a bare `Callable`."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for arg in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs):
            if arg.arg not in TYPED_PARAMETERS:
                continue
            names = {n.id if isinstance(n, ast.Name) else n.attr for n in ast.walk(arg.annotation)
                     if isinstance(n, (ast.Name, ast.Attribute))} if arg.annotation else {"Any"}
            if "Any" in names or (arg.arg != "session" and "Callable" in names):
                shown = ast.unparse(arg.annotation) if arg.annotation else "nothing"
                found.append(f"{where}:{arg.lineno} {node.name}({arg.arg}: {shown})")
    return found


def test_the_type_check_finds_a_loose_parameter() -> None:
    found = loosely_typed("async def f(session: Any | None, *, t: typing.Any) -> None: ...\n"
                          "def g(t: Callable[..., str], translator) -> None: ...\n"
                          "def h(session: Session, t: Translator, other: Any) -> None: ...", "m")
    assert found == ["m:1 f(session: Any | None)", "m:1 f(t: typing.Any)",
                     "m:2 g(t: Callable[..., str])", "m:2 g(translator: nothing)"]


def test_sessions_and_translators_are_typed() -> None:
    """No `Any` for a session or a translator anywhere in bot/."""
    found = []
    for path in sorted((ROOT / "bot").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        found += loosely_typed(path.read_text(encoding="utf-8"), rel)
    assert not found, "parameters typed loosely:\n" + "\n".join(found)


# -- each style says what it is -------------------------------------------------------------------

# Frozen history: a migration keeps the defaults of its day, whatever the styles say now.
HISTORY = ("db/migrations/",)
STATIC = ROOT / "bot" / "web" / "static"


def style_names() -> re.Pattern[str]:
    """Every registered style's code and its short names in each language (luzhou, 泸州 …)."""
    from scoring.variant import all_variants

    styles = all_variants().values()
    words = sorted({re.escape(w) for v in styles for w in v.short}, key=len, reverse=True)
    # a code that is also a plain word (free) names the style unless it stands in running text,
    # a word before and after it ("the first free seat")
    codes = [rf"(?<![A-Za-z] )\b{re.escape(v.name)}\b|\b{re.escape(v.name)}\b(?! [A-Za-z])"
             for v in styles]
    return re.compile("|".join([*words, *codes]), re.IGNORECASE)


def docstrings(tree: ast.AST) -> set[int]:
    """The ids of the docstring constants of a module, its classes and functions."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def styles_named(pattern: re.Pattern[str]) -> list[str]:
    """Where a string constant outside scoring/variants/ names a style (docstrings aside), and
    where the page's own files do."""
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if rel.startswith(("scoring/variants/", *HISTORY)):
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"), rel)
            skip = docstrings(tree)
            found += [f"{rel}:{node.lineno} {node.value[:60]!r}" for node in ast.walk(tree)
                      if isinstance(node, ast.Constant) and isinstance(node.value, str)
                      and id(node) not in skip and pattern.search(node.value)]
    for path in sorted(STATIC.glob("*.*")):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if pattern.search(line):
                found.append(f"{path.relative_to(ROOT).as_posix()}:{n} {line.strip()[:60]!r}")
    return found


def test_the_style_check_finds_a_name() -> None:
    pattern = style_names()
    assert pattern.search("if variant == 'Luzhou':") and pattern.search("流局查叫（泸州、贵阳）")
    assert not pattern.search("a blood battle goes on until three seats have won")
    assert pattern.search('"free"') and pattern.search("/new free")
    assert not pattern.search("sit down at the first free seat")


def test_no_style_is_named_outside_its_module() -> None:
    """Everything the chat, the keyboards, the /hu line, the page and the renderers know about a
    style its `Variant` declares (scoring/variants/<name>.py, listed in scoring.variants.ORDER):
    no code elsewhere names one, so a new style touches its own module alone."""
    found = styles_named(style_names())
    assert not found, "a style named outside scoring/variants/:\n" + "\n".join(found)
