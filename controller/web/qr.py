"""A small QR code encoder (ISO/IEC 18004): byte mode, error correction level M,
versions 1-10 -- enough for the host page's link (up to 213 bytes).

Written here rather than taken as a dependency: the host link is the only thing
encoded, and about 150 lines do it.  :func:`matrix` gives the modules (True = dark);
:func:`half_blocks` draws them in a terminal with Unicode half blocks, two rows of
modules per line of text.
"""

from __future__ import annotations

# level M: (data codewords, EC codewords per block, blocks in group 1, data per block g1, blocks g2, data g2)
_BLOCKS_M = {
    1: (10, 1, 16, 0, 0), 2: (16, 1, 28, 0, 0), 3: (26, 1, 44, 0, 0), 4: (18, 2, 32, 0, 0),
    5: (24, 2, 43, 0, 0), 6: (16, 4, 27, 0, 0), 7: (18, 4, 31, 0, 0), 8: (22, 2, 38, 2, 39),
    9: (22, 3, 36, 2, 37), 10: (26, 4, 43, 1, 44),
}
"""version -> (EC codewords per block, blocks of group 1, data codewords each, blocks of group 2, data each)."""

_ALIGN = {1: [], 2: [6, 18], 3: [6, 22], 4: [6, 26], 5: [6, 30], 6: [6, 34], 7: [6, 22, 38],
          8: [6, 24, 42], 9: [6, 26, 46], 10: [6, 28, 50]}

# GF(256) with the QR polynomial 0x11d
_EXP = [0] * 512
_LOG = [0] * 256
_x = 1
for _i in range(255):
    _EXP[_i] = _x
    _LOG[_x] = _i
    _x <<= 1
    if _x & 0x100:
        _x ^= 0x11D
for _i in range(255, 512):
    _EXP[_i] = _EXP[_i - 255]


def _mul(a: int, b: int) -> int:
    return 0 if a == 0 or b == 0 else _EXP[_LOG[a] + _LOG[b]]


def _ec(data: list[int], n: int) -> list[int]:
    """Reed-Solomon error correction codewords of ``data`` (``n`` of them)."""
    gen = [1]
    for i in range(n):
        gen = [a ^ _mul(b, _EXP[i]) for a, b in zip(gen + [0], [0] + gen)]
    rem = [0] * n
    for d in data:
        factor = d ^ rem[0]
        rem = rem[1:] + [0]
        for j in range(n):
            rem[j] ^= _mul(gen[j + 1], factor)
    return rem


def _capacity(version: int) -> int:
    _, b1, d1, b2, d2 = _BLOCKS_M[version]
    return b1 * d1 + b2 * d2


def _codewords(data: bytes) -> tuple[int, list[int]]:
    for version in range(1, 11):
        count_bits = 8 if version < 10 else 16
        if 4 + count_bits + 8 * len(data) <= 8 * _capacity(version):
            break
    else:
        raise ValueError(f"too long for a QR code of version 10 ({len(data)} bytes)")
    bits = [0, 1, 0, 0] + [(len(data) >> i) & 1 for i in reversed(range(count_bits))]
    for byte in data:
        bits += [(byte >> i) & 1 for i in reversed(range(8))]
    cap = 8 * _capacity(version)
    bits += [0] * min(4, cap - len(bits))
    bits += [0] * (-len(bits) % 8)
    words = [int("".join(map(str, bits[i:i + 8])), 2) for i in range(0, len(bits), 8)]
    pad = [0xEC, 0x11]
    i = 0
    while len(words) < _capacity(version):
        words.append(pad[i % 2])
        i += 1
    ecn, b1, d1, b2, d2 = _BLOCKS_M[version]
    blocks, pos = [], 0
    for size in [d1] * b1 + [d2] * b2:
        blocks.append(words[pos:pos + size])
        pos += size
    ecs = [_ec(b, ecn) for b in blocks]
    out = [b[i] for i in range(max(len(b) for b in blocks)) for b in blocks if i < len(b)]
    out += [e[i] for i in range(ecn) for e in ecs]
    return version, out


def _bch_format(mask: int) -> int:
    data = (0b00 << 3) | mask  # level M is 00
    rem = data << 10
    for i in range(14, 9, -1):
        if rem >> i & 1:
            rem ^= 0x537 << (i - 10)
    return ((data << 10) | rem) ^ 0x5412


def _bch_version(version: int) -> int:
    rem = version << 12
    for i in range(17, 11, -1):
        if rem >> i & 1:
            rem ^= 0x1F25 << (i - 12)
    return (version << 12) | rem


_MASKS = [
    lambda r, c: (r + c) % 2 == 0, lambda r, c: r % 2 == 0, lambda r, c: c % 3 == 0,
    lambda r, c: (r + c) % 3 == 0, lambda r, c: (r // 2 + c // 3) % 2 == 0,
    lambda r, c: (r * c) % 2 + (r * c) % 3 == 0, lambda r, c: ((r * c) % 2 + (r * c) % 3) % 2 == 0,
    lambda r, c: ((r + c) % 2 + (r * c) % 3) % 2 == 0,
]


def _base(version: int):
    size = 17 + 4 * version
    m = [[False] * size for _ in range(size)]
    fixed = [[False] * size for _ in range(size)]

    def put(r, c, dark):
        m[r][c] = dark
        fixed[r][c] = True

    for r0, c0 in ((0, 0), (0, size - 7), (size - 7, 0)):
        for r in range(-1, 8):
            for c in range(-1, 8):
                if 0 <= r0 + r < size and 0 <= c0 + c < size:
                    ring = max(abs(r - 3), abs(c - 3))
                    put(r0 + r, c0 + c, ring in (0, 1, 3))
    for i in range(8, size - 8):
        put(6, i, i % 2 == 0)
        put(i, 6, i % 2 == 0)
    centres = _ALIGN[version]
    last = centres[-1] if centres else 0
    for r in centres:
        for c in centres:
            if (r, c) in ((6, 6), (6, last), (last, 6)):  # under a finder pattern
                continue
            for dr in range(-2, 3):
                for dc in range(-2, 3):
                    put(r + dr, c + dc, max(abs(dr), abs(dc)) != 1)
    for i in range(9):  # format areas, filled later
        for r, c in ((8, i), (i, 8)):
            if not fixed[r][c]:
                put(r, c, False)
    for i in range(8):
        put(8, size - 1 - i, False)
    for i in range(7):
        put(size - 1 - i, 8, False)
    put(size - 8, 8, True)  # the dark module
    if version >= 7:
        bits = _bch_version(version)
        for i in range(18):
            dark = bool(bits >> i & 1)
            put(size - 11 + i % 3, i // 3, dark)
            put(i // 3, size - 11 + i % 3, dark)
    return m, fixed


def _place(m, fixed, words: list[int]) -> None:
    size = len(m)
    bits = [(w >> i) & 1 for w in words for i in reversed(range(8))]
    k = 0
    col = size - 1
    upward = True
    while col > 0:
        if col == 6:
            col -= 1
        rows = range(size - 1, -1, -1) if upward else range(size)
        for r in rows:
            for c in (col, col - 1):
                if not fixed[r][c]:
                    m[r][c] = bool(bits[k]) if k < len(bits) else False
                    k += 1
        upward = not upward
        col -= 2


def _format(m, mask: int) -> None:
    size = len(m)
    bits = _bch_format(mask)
    seq = [(bits >> i) & 1 for i in range(15)]
    near = [(i, 8) for i in range(6)] + [(7, 8), (8, 8), (8, 7)] + [(8, 14 - i) for i in range(9, 15)]
    far = [(8, size - 1 - i) for i in range(8)] + [(size - 15 + i, 8) for i in range(8, 15)]
    for i in range(15):
        for r, c in (near[i], far[i]):
            m[r][c] = bool(seq[i])


def _penalty(m) -> int:
    size = len(m)
    score = 0
    for grid in (m, [list(col) for col in zip(*m)]):
        for row in grid:
            run = 1
            for i in range(1, size):
                if row[i] == row[i - 1]:
                    run += 1
                else:
                    score += run - 2 if run >= 5 else 0
                    run = 1
            score += run - 2 if run >= 5 else 0
            text = "".join("1" if x else "0" for x in row)
            score += 40 * (text.count("10111010000") + text.count("00001011101"))
    for r in range(size - 1):
        for c in range(size - 1):
            if m[r][c] == m[r][c + 1] == m[r + 1][c] == m[r + 1][c + 1]:
                score += 3
    dark = sum(map(sum, m))
    score += 10 * (abs(dark * 20 - size * size * 10) // (size * size))
    return score


def matrix(text: str | bytes) -> list[list[bool]]:
    """The QR code of ``text`` (UTF-8) as rows of modules, True = dark (no quiet zone)."""
    data = text.encode("utf-8") if isinstance(text, str) else bytes(text)
    version, words = _codewords(data)
    best = None
    for mask in range(8):
        m, fixed = _base(version)
        _place(m, fixed, words)
        f = _MASKS[mask]
        for r in range(len(m)):
            for c in range(len(m)):
                if not fixed[r][c] and f(r, c):
                    m[r][c] = not m[r][c]
        _format(m, mask)
        p = _penalty(m)
        if best is None or p < best[0]:
            best = (p, m)
    return best[1]


def half_blocks(m: list[list[bool]], quiet: int = 3) -> str:
    """The code as text for a terminal: dark modules drawn light-on-dark are unreadable, so
    the code is drawn as it is printed (dark on light), two module rows per line."""
    size = len(m) + 2 * quiet
    grid = [[False] * size for _ in range(size)]
    for r, row in enumerate(m):
        for c, v in enumerate(row):
            grid[r + quiet][c + quiet] = v
    if size % 2:
        grid.append([False] * size)
    chars = {(False, False): "\u2588", (True, True): " ", (True, False): "\u2584", (False, True): "\u2580"}
    return "\n".join("".join(chars[(grid[r][c], grid[r + 1][c])] for c in range(size))
                     for r in range(0, len(grid), 2))
