"""Reading a screenshot's pixels without an imaging library: PNG as Chromium writes it (8 bits
per channel, RGB or RGBA, not interlaced), enough to tell a page with content from a blank
one."""

from __future__ import annotations

import struct
import zlib
from collections import Counter

CHANNELS = {2: 3, 6: 4}  # colour type -> bytes per pixel (RGB, RGBA)


def pixels(png: bytes) -> tuple[int, int, list[bytes]]:
    """Width, height and the unfiltered rows of ``png``."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    at, idat, header = 8, b"", b""
    while at < len(png):
        (length,) = struct.unpack(">I", png[at:at + 4])
        kind, data = png[at + 4:at + 8], png[at + 8:at + 8 + length]
        header = data if kind == b"IHDR" else header
        idat += data if kind == b"IDAT" else b""
        at += 12 + length
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", header)
    assert depth == 8 and colour in CHANNELS and interlace == 0, (depth, colour, interlace)
    bpp = CHANNELS[colour]
    raw, stride, rows = zlib.decompress(idat), width * bpp, []
    prior = bytes(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for x in range(stride):
            left = line[x - bpp] if x >= bpp else 0
            up, corner = prior[x], prior[x - bpp] if x >= bpp else 0
            line[x] = (line[x] + _predict(kind, left, up, corner)) & 0xFF
        prior = bytes(line)
        rows.append(b"".join(prior[i:i + 3] for i in range(0, stride, bpp)))
    return width, height, rows


def _predict(kind: int, left: int, up: int, corner: int) -> int:
    if kind == 0:
        return 0
    if kind == 1:
        return left
    if kind == 2:
        return up
    if kind == 3:
        return (left + up) // 2
    guess = left + up - corner
    near = min((abs(guess - left), 0, left), (abs(guess - up), 1, up),
               (abs(guess - corner), 2, corner))
    return near[2]


def ink(png: bytes) -> tuple[float, int]:
    """The share of pixels that differ from the most common colour (the background), and how
    many colours there are: a blank page has (0.0, 1)."""
    width, height, rows = pixels(png)
    colours: Counter[bytes] = Counter()
    for row in rows:
        colours.update(row[i:i + 3] for i in range(0, len(row), 3))
    background = colours.most_common(1)[0][1]
    return 1 - background / (width * height), len(colours)
