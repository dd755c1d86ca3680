"""Issue 27, attack 8: ``verify`` on a 1 MiB zip bomb read every member whole (2.1 GiB peak).
Now members are hashed as streams and each one's size and compression ratio is checked before
it is opened: the bomb is refused with one line, the process staying far under 256 MiB."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from evidence.bomb import write_bomb
from tests.security.conftest import ENV, ROOT

MIB = 1 << 20


# The child reports its own high-water mark (VmHWM) as it exits: ``wait4``'s ru_maxrss would
# also count the pytest process it was forked from (Linux carries the pre-exec peak over).
PEAK = (
    "import atexit, runpy, sys\n"
    "def peak():\n"
    "    line = next(x for x in open('/proc/self/status') if x.startswith('VmHWM'))\n"
    "    sys.stderr.write('PEAK_KB ' + line.split()[1] + '\\n')\n"
    "atexit.register(peak)\n"
    "sys.argv = ['tablescan', 'verify', sys.argv[1]]\n"
    "runpy.run_module('tablescan', run_name='__main__')\n"
)


def verify_rss(bundle: Path) -> tuple[int, str, int]:
    """(exit code, stdout, peak RSS in bytes) of ``tablescan verify BUNDLE`` as a process."""
    proc = subprocess.run(
        [sys.executable, "-c", PEAK, str(bundle)],
        cwd=ROOT,
        env=ENV,
        capture_output=True,
        text=True,
        check=False,
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    kb = [int(x.split()[1]) for x in proc.stderr.splitlines() if x.startswith("PEAK_KB ")]
    assert kb, proc.stderr
    return proc.returncode, proc.stdout, kb[-1] * 1024


@pytest.fixture(scope="module")
def bomb(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    path = tmp_path_factory.mktemp("bomb") / "bomb.zip"
    assert write_bomb(path) < 1.5 * MIB  # 1 GiB of zeros in about 1 MiB
    return path.read_bytes()


def test_zip_bomb_is_refused_under_256_mib(tmp_path: Path, bomb: bytes) -> None:
    path = tmp_path / "bomb.zip"
    path.write_bytes(bomb)
    code, out, rss = verify_rss(path)
    assert code == 1 and "a zip bomb" in out and "media/frame.jpg: refused" in out, out
    assert rss < 256 * MIB, f"peak RSS {rss / MIB:.0f} MiB"


def test_member_lying_about_its_size_is_not_inflated(tmp_path: Path, bomb: bytes) -> None:
    """A member whose header declares a few bytes but whose stream inflates to 1 GiB: read
    no further than declared (the CRC then fails), never inflated whole."""
    raw = bytearray(bomb)
    # the central directory's zip64 extra holds the sizes: declare 4 KiB uncompressed
    big = (1 << 30).to_bytes(8, "little")
    at = raw.rfind(big)
    assert at > 0
    raw[at : at + 8] = (4096).to_bytes(8, "little")
    liar = tmp_path / "liar.zip"
    liar.write_bytes(bytes(raw))
    code, out, rss = verify_rss(liar)
    assert code == 1 and "media/frame.jpg" in out, out
    assert rss < 256 * MIB, f"peak RSS {rss / MIB:.0f} MiB"
