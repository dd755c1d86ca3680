"""The CLI speaks Chinese first: ``tablescan judge``, ``profiles`` and ``verify`` print zh-CN by
default, English with ``--lang en`` or ``TABLESCAN_LANG``/``LANG``; ``--json`` is the same in
both; every string the text output shows is in both catalogs."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from engine.names import RULES
from evidence import EvidenceStore
from tablescan import i18n
from tests.dashboard.conftest import match_record
from tests.keys import node_key_id

ROOT = Path(__file__).resolve().parent.parent
RULE_IDS = re.compile(r"\b(" + "|".join(sorted(RULES, key=len, reverse=True)) + r")\b")


def tablescan(
    *args: str, lang_env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("TABLESCAN_LANG", "LANG", "LC_ALL")}
    env |= {"PYTHONPATH": str(ROOT), **(lang_env or {})}
    return subprocess.run(
        [sys.executable, "-m", "tablescan", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=120,
    )


@pytest.fixture(scope="module")
def record(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("rec") / "match.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in match_record()), encoding="utf-8")
    return path


def test_every_cli_msgid_has_chinese_and_english() -> None:
    assert i18n.problems() == []


def test_placeholders_survive_translation() -> None:
    fields = re.compile(r"\{(\w+)\}")
    for m in i18n.load("zh_CN"):
        if m.id:
            assert set(fields.findall(str(m.string))) == set(fields.findall(str(m.id))), m.id


def test_judge_is_chinese_by_default(record: Path) -> None:
    out = tablescan("judge", str(record))
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert text.startswith("八十分（拖拉机）比赛，规则 school-2010")
    assert "扣底张数错误：2 号位（South），第 4 号" in text  # the sheet's name, not the rule id
    assert "甩牌失败" in text and "出牌张数不符" in text
    assert "梅花K、梅花K" in text and "小王" in text  # cards as referees say them
    assert "主牌 方块" in text and "闲家得分：230 分" in text
    code_lines = [ln for ln in text.splitlines() if ln.lstrip().startswith("!")]
    assert code_lines and not any(RULE_IDS.search(ln) for ln in code_lines)


def test_english_one_switch_away(record: Path) -> None:
    flag = tablescan("judge", "--lang", "en", str(record)).stdout
    env = tablescan("judge", str(record), lang_env={"TABLESCAN_LANG": "en"}).stdout
    posix = tablescan("judge", str(record), lang_env={"LANG": "en_US.UTF-8"}).stdout
    assert flag == env == posix
    assert flag.startswith("tractor match, profile school-2010")
    assert "Wrong bury count by seat 2 (South) at seq 4" in flag and "KC KC" in flag
    # the flag beats the environment
    zh = tablescan("judge", "--lang", "zh", str(record), lang_env={"LANG": "en_US.UTF-8"})
    assert zh.stdout.startswith("八十分")


def test_json_is_the_same_in_both_languages(record: Path) -> None:
    zh = tablescan("judge", "--json", str(record))
    en = tablescan("judge", "--json", "--lang", "en", str(record))
    assert zh.stdout == en.stdout and json.loads(zh.stdout)["hands"][0]["violations"]
    assert json.loads(zh.stdout)["hands"][0]["violations"][0]["rule"] == "wrong_bury_count"


def test_profiles_and_verify_in_chinese(tmp_path: Path) -> None:
    listing = tablescan("profiles").stdout.splitlines()
    assert listing[0] == "八十分（升级、拖拉机）:" and "够级:" in listing
    show = tablescan("profiles", "show", "school-2010").stdout
    assert "出处：" in show and "条文：" in show
    store = EvidenceStore(tmp_path, durable=False)
    for e in match_record()[:3]:
        store.append_event("t1", e)
    store.close()
    check = tablescan("verify", "--data", str(tmp_path), "--key", node_key_id())
    assert "链上 3 行" in check.stdout and check.stdout.rstrip().endswith("：完好"), check.stdout
    unpinned = tablescan("verify", "--data", str(tmp_path)).stdout
    assert "未与任何东西核对" in unpinned and "完好" not in unpinned, unpinned
    en = tablescan("verify", "--lang", "en", "--data", str(tmp_path), "--key", node_key_id()).stdout
    assert "3 chained rows" in en and en.rstrip().endswith(": OK")


@pytest.mark.parametrize(
    ("flag", "env", "want"),
    [
        (None, {}, "zh_CN"),
        ("en", {"LANG": "zh_CN.UTF-8"}, "en"),
        (None, {"TABLESCAN_LANG": "en", "LANG": "zh_CN.UTF-8"}, "en"),
        (None, {"LANG": "en_GB.UTF-8"}, "en"),
        (None, {"LANG": "C.UTF-8"}, "zh_CN"),
        ("zh", {"TABLESCAN_LANG": "en"}, "zh_CN"),
    ],
)
def test_choose(flag: str | None, env: dict[str, str], want: str) -> None:
    assert i18n.choose(flag, env) == want
