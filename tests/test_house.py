"""The house's import graph: data flows one way (CONTRIBUTING.md, "The house").

Every ``import`` in our source files (at module level or inside a function: a lazy import is
an arrow too) is read with ``ast``; a new circle or an import against the flow fails here
with the file and line that made it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = (
    "engine",
    "vision",
    "firmware_bridge",
    "evidence",
    "dashboard",
    "models",
    "hall",
    "fusion",
    "tablescan",
)
OURS = (*PACKAGES, "bench", "tests")

# what each package may import of ours besides itself (None: any of the packages)
ALLOWED: dict[str, tuple[str, ...] | None] = {
    "engine": (),
    "vision": ("engine.cards",),  # card notation only: never the spine
    "firmware_bridge": (),
    "evidence": ("engine",),
    "dashboard": ("engine", "evidence", "vision"),
    "models": ("engine", "vision"),
    "hall": ("engine", "evidence", "dashboard"),  # the desk serves the dashboard
    "fusion": ("engine", "vision"),  # observations and the rules' facts in, events out
    "tablescan": None,
    "bench": None,
}
# the top of the house: nothing below it may reach it, not even through other modules
TOP = (
    "tablescan.cli",
    "tablescan.commands",
    "tablescan.wiring",
    "tablescan.demo",
    "tablescan.node",
)
BELOW_TOP = (
    "engine", "vision", "firmware_bridge", "evidence", "dashboard", "models", "hall", "fusion",
)  # fmt: skip


@dataclass(frozen=True)
class Arrow:
    source: str  # importing module
    target: str  # imported module (or package)
    where: str  # file:line

    def __str__(self) -> str:
        return f"{self.where}: {self.source} imports {self.target}"


def module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def source_files(root: Path, tops: Iterable[str]) -> Iterator[Path]:
    for top in tops:
        base = root / top
        if base.is_dir():
            yield from sorted(p for p in base.rglob("*.py") if ".venv" not in p.parts)


def arrows(root: Path, tops: Iterable[str] = OURS) -> list[Arrow]:
    """Every import of one of our modules, from every source file under ``tops``."""
    known = {module_name(root, p) for p in source_files(root, tops)}
    out: list[Arrow] = []
    for path in source_files(root, tops):
        src = module_name(root, path)
        package = src if path.name == "__init__.py" else src.rpartition(".")[0]
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*up, base] if base else up)
                # ``from pkg import mod`` imports the module pkg.mod when there is one
                subs = [f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in known]
                targets = subs or [base]
            for t in targets:
                if t.split(".")[0] in OURS:
                    rel = path.relative_to(root).as_posix()
                    out.append(Arrow(src, t, f"{rel}:{node.lineno}"))
    return out


def within(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def against_the_flow(found: Iterable[Arrow]) -> list[Arrow]:
    bad = []
    for a in found:
        top = a.source.split(".")[0]
        if within(a.target, top) or top == "tests":
            continue
        allowed = ALLOWED.get(top)
        if a.target.split(".")[0] == "tests":
            bad.append(a)  # product code and benches never lean on the tests
        elif allowed is not None and not any(within(a.target, ok) for ok in allowed):
            bad.append(a)
    return bad


def graph(found: Iterable[Arrow], level: int | None = None) -> dict[str, set[str]]:
    """Module graph (``level``: names cut to that many parts, 1 = top-level packages)."""

    def cut(name: str) -> str:
        return name if level is None else ".".join(name.split(".")[:level])

    g: dict[str, set[str]] = {}
    for a in found:
        s, t = cut(a.source), cut(a.target)
        if s != t:
            g.setdefault(s, set()).add(t)
    return g


def reach(g: dict[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    todo = [start]
    while todo:
        for nxt in g.get(todo.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def cycles(g: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected parts with more than one member (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(g.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                out.append(sorted(part))

    for v in sorted(g):
        if v not in index:
            visit(v)
    return out


@pytest.fixture(scope="module")
def ours() -> list[Arrow]:
    return arrows(ROOT, (*PACKAGES, "bench"))


def test_every_import_runs_with_the_flow(ours: list[Arrow]) -> None:
    assert len(ours) > 100  # the reader found the house's imports
    bad = against_the_flow(ours)
    assert not bad, "imports against the flow:\n" + "\n".join(map(str, bad))


def test_no_package_imports_in_a_circle(ours: list[Arrow]) -> None:
    packages = graph((a for a in ours if a.source.split(".")[0] in PACKAGES), level=1)
    assert "engine" not in packages  # engine imports nothing of ours
    assert not cycles(packages), cycles(packages)


def test_no_module_imports_in_a_circle(ours: list[Arrow]) -> None:
    assert not cycles(graph(ours)), cycles(graph(ours))


def test_nothing_below_the_top_reaches_it(ours: list[Arrow]) -> None:
    """Not even through a module in between: the dashboard never pulls in the CLI or the
    node, vision never the spine."""
    g = graph(ours)
    for module in sorted(g):
        if module.split(".")[0] in BELOW_TOP:
            hits = sorted(t for t in reach(g, module) if any(within(t, top) for top in TOP))
            assert not hits, f"{module} reaches {hits}"


def test_the_check_catches_a_wrong_way_import(tmp_path: Path) -> None:
    """The checks themselves, on a small house built wrong on purpose."""
    for name, text in {
        "engine/__init__.py": "",
        "engine/cards.py": "",
        "engine/record.py": "from engine import cards\n",
        "vision/__init__.py": "",
        "vision/fusion.py": "from engine.cards import X\n\ndef f():\n    import tablescan.node\n",
        "tablescan/__init__.py": "",
        "tablescan/node.py": "from . import other\n",
        "tablescan/other.py": "from tablescan import node\n",
        "bench/bench_x.py": "from tests.helpers import thing\n",
    }.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    found = arrows(tmp_path, ("engine", "vision", "tablescan", "bench"))
    assert {str(a) for a in against_the_flow(found)} == {
        "vision/fusion.py:4: vision.fusion imports tablescan.node",
        "bench/bench_x.py:1: bench.bench_x imports tests.helpers",
    }
    assert cycles(graph(found)) == [["tablescan.node", "tablescan.other"]]
    assert "tablescan.node" in reach(graph(found), "vision.fusion")
