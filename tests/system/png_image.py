"""A minimal PNG reader and writer (standard library only).

The system test checks a browser screenshot by its pixels, and must not depend
on Pillow or any other package that a fresh machine lacks. Only what Chromium
writes is supported: 8-bit RGB or RGBA, not interlaced. The writer exists so
the checker can be tested against images whose pixels are known.
"""

import struct
import zlib

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_CHANNELS = {2: 3, 6: 4}  # colour type -> bytes per pixel at bit depth 8
# A screenshot is at most a few thousand pixels a side; the bound keeps a
# broken or hostile file from making the test allocate gigabytes.
_MAX_SIDE = 16384


class PngError(ValueError):
    pass


class Image:
    """Decoded pixels: rows of bytes, `channels` bytes per pixel."""

    def __init__(self, width, height, channels, rows):
        self.width = width
        self.height = height
        self.channels = channels
        self.rows = rows

    def rgb(self, x, y):
        i = x * self.channels
        r = self.rows[y]
        return r[i], r[i + 1], r[i + 2]


def _paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def _unfilter(kind, line, prev, bpp):
    out = bytearray(line)
    n = len(out)
    if kind == 0:
        pass
    elif kind == 1:
        for i in range(bpp, n):
            out[i] = (out[i] + out[i - bpp]) & 0xFF
    elif kind == 2:
        for i in range(n):
            out[i] = (out[i] + prev[i]) & 0xFF
    elif kind == 3:
        for i in range(n):
            left = out[i - bpp] if i >= bpp else 0
            out[i] = (out[i] + ((left + prev[i]) >> 1)) & 0xFF
    elif kind == 4:
        for i in range(n):
            left = out[i - bpp] if i >= bpp else 0
            up_left = prev[i - bpp] if i >= bpp else 0
            out[i] = (out[i] + _paeth(left, prev[i], up_left)) & 0xFF
    else:
        raise PngError("unknown filter type %d" % kind)
    return out


def _filter(kind, line, prev, bpp):
    """The inverse of _unfilter, for the writer."""
    n = len(line)
    out = bytearray(n)
    for i in range(n):
        left = line[i - bpp] if i >= bpp else 0
        up_left = prev[i - bpp] if i >= bpp else 0
        if kind == 0:
            pred = 0
        elif kind == 1:
            pred = left
        elif kind == 2:
            pred = prev[i]
        elif kind == 3:
            pred = (left + prev[i]) >> 1
        else:
            pred = _paeth(left, prev[i], up_left)
        out[i] = (line[i] - pred) & 0xFF
    return out


def decode(data):
    """Decodes a PNG file's bytes; raises PngError on anything unexpected."""
    if not data.startswith(PNG_SIGNATURE):
        raise PngError("not a PNG file (bad signature)")
    pos = len(PNG_SIGNATURE)
    header = None
    idat = bytearray()
    seen_end = False
    while pos < len(data):
        if pos + 8 > len(data):
            raise PngError("truncated chunk header")
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        ctype = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        crc = data[pos + 8 + length:pos + 12 + length]
        if len(body) != length or len(crc) != 4:
            raise PngError("truncated %r chunk" % ctype)
        if struct.unpack(">I", crc)[0] != zlib.crc32(ctype + body):
            raise PngError("bad CRC in %r chunk" % ctype)
        pos += 12 + length
        if ctype == b"IHDR":
            if length != 13:
                raise PngError("IHDR of %d bytes" % length)
            header = struct.unpack(">IIBBBBB", body)
        elif ctype == b"IDAT":
            idat += body
        elif ctype == b"IEND":
            seen_end = True
            break
    if header is None or not seen_end:
        raise PngError("missing IHDR or IEND")
    width, height, depth, colour, _compression, _filter_method, interlace = header
    if depth != 8 or colour not in _CHANNELS:
        raise PngError("unsupported format: bit depth %d, colour type %d" % (depth, colour))
    if interlace != 0:
        raise PngError("interlaced PNGs are not supported")
    if not (0 < width <= _MAX_SIDE and 0 < height <= _MAX_SIDE):
        raise PngError("implausible size %dx%d" % (width, height))
    bpp = _CHANNELS[colour]
    stride = width * bpp
    expected = height * (stride + 1)
    dec = zlib.decompressobj()
    try:
        raw = dec.decompress(bytes(idat), expected)
    except zlib.error as e:
        raise PngError("bad zlib stream: %s" % e)
    if len(raw) != expected:
        raise PngError("image data is %d bytes, expected %d" % (len(raw), expected))
    rows = []
    prev = bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        line = _unfilter(raw[start], raw[start + 1:start + 1 + stride], prev, bpp)
        rows.append(line)
        prev = line
    return Image(width, height, bpp, rows)


def _chunk(ctype, body):
    return struct.pack(">I", len(body)) + ctype + body + struct.pack(">I", zlib.crc32(ctype + body))


def encode(width, height, pixel, channels=3, filters=(0,)):
    """Writes a PNG whose pixel (x, y) is pixel(x, y) -> (r, g, b[, a]).

    Rows cycle through `filters`, so a round trip exercises every filter type.
    """
    colour = {3: 2, 4: 6}[channels]
    raw = bytearray()
    prev = bytearray(width * channels)
    for y in range(height):
        line = bytearray()
        for x in range(width):
            line += bytes(pixel(x, y)[:channels])
        kind = filters[y % len(filters)]
        raw.append(kind)
        raw += _filter(kind, line, prev, channels)
        prev = line
    ihdr = struct.pack(">IIBBBBB", width, height, 8, colour, 0, 0, 0)
    return (PNG_SIGNATURE + _chunk(b"IHDR", ihdr) + _chunk(b"IDAT", zlib.compress(bytes(raw)))
            + _chunk(b"IEND", b""))
