"""A zip bomb shaped like a dispute bundle, for the test and the bench of bounded ``verify``.

One deflated member of zeros (about 1000:1), sealed like a real bundle, so that ``verify``
gets past the seal and meets the member itself: about 1 MiB on disk for 1 GiB inflated.
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

from evidence.export import seal_zip

CHUNK = 16 << 20


def write_bomb(out: str | Path, inflated: int = 1 << 30, name: str = "media/frame.jpg") -> int:
    """Write the bomb to ``out``; returns its size on disk."""
    buf = io.BytesIO()
    zero = bytes(CHUNK)
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        zf.writestr("manifest.json", "{}")
        info = zipfile.ZipInfo(name)
        info.compress_type = zipfile.ZIP_DEFLATED
        with zf.open(info, "w", force_zip64=True) as w:
            left = inflated
            while left > 0:
                w.write(zero[: min(CHUNK, left)])
                left -= CHUNK
    raw = seal_zip(buf.getvalue())
    Path(out).write_bytes(raw)
    return len(raw)
