"""Every reason the table node writes on its own corrections (``fusion.plays``'s ``why``,
English in the record) has its Chinese in ``engine.names``: the audit log and the demo's
terminal never show a Chinese referee English. The reasons are read from the fusion's source,
so a new one fails here until it is named."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from engine import names

FUSION = Path(__file__).resolve().parents[2] / "fusion" / "plays.py"
SAMPLES = ("2", "KH")  # a count, a card: what the placeholders hold


def _reasons() -> list[ast.expr]:
    """The string expressions assigned to ``why`` or given to ``camera_fix``."""
    out: list[ast.expr] = []
    for node in ast.walk(ast.parse(FUSION.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                names_ = target.elts if isinstance(target, ast.Tuple) else [target]
                values = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
                for t, v in zip(names_, values, strict=False):
                    if isinstance(t, ast.Name) and t.id == "why":
                        out.append(v)
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "camera_fix":
            out += [a for a in node.args[:1] if isinstance(a, ast.Constant | ast.JoinedStr)]
    return [e for e in out if isinstance(e, ast.Constant | ast.JoinedStr)]


def _example(expr: ast.expr, sample: str) -> str:
    if isinstance(expr, ast.Constant):
        return str(expr.value)
    assert isinstance(expr, ast.JoinedStr)
    return "".join(str(p.value) if isinstance(p, ast.Constant) else sample for p in expr.values)


def test_every_camera_reason_has_its_chinese() -> None:
    reasons = _reasons()
    assert len(reasons) >= 12
    for expr in reasons:
        texts = [_example(expr, sample) for sample in SAMPLES]
        # a piece that starts with a placeholder ("{card} read twice") is said inside another
        texts = [f"most plays of the trick have 2 cards; {t}" if t[0] in "2K" else t for t in texts]
        said = {t: names.detail_text(t, "zh_CN") for t in texts}
        assert any(said.values()), texts  # with counts, or with cards, where they go
        for text, zh in said.items():
            if zh is not None:
                assert not re.search(r"[A-Za-z]{3,}", zh), (text, zh)
            assert names.detail_text(text, "en") == text
