"""Metadata entries appended to an ONNX file without the ``onnx`` package (a lent training
machine may lack it; onnxruntime reads them back)."""

from __future__ import annotations

from pathlib import Path


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        b, n = n & 0x7F, n >> 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def add_metadata(path: Path, meta: dict[str, str]) -> None:
    """Append ``meta`` to the model's ``metadata_props``: that is field 14 of
    ``ModelProto``, and protobuf reads repeated fields appended at a message's end as part
    of it."""

    def field(num: int, data: bytes) -> bytes:
        return _varint(num << 3 | 2) + _varint(len(data)) + data

    blob = b"".join(field(14, field(1, k.encode()) + field(2, v.encode())) for k, v in meta.items())
    with path.open("ab") as f:
        f.write(blob)
