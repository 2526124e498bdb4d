"""Sluice's framestamp (Plugins/framestamp/Framestamp.swift), written by Python into raw
I420 frames, so a camera that is not Sluice can carry the capture time to a Sluice viewer
(`framestamp-read`, `sluice load --decode all`): 3 rows of 32 squares (16 px, at the top-left
corner), luma 235 for a 1 and 16 for a 0, chroma 128 under them; the words are the frame
number, bits 47…16 of CLOCK_MONOTONIC in µs, then its bits 15…0 and the CRC-16/CCITT-FALSE
of number (4 bytes) · time (6 bytes), big-endian.
"""
import time

BLOCK, COLUMNS, ROWS = 16, 32, 3
MASK = (1 << 48) - 1


def crc16(data):
    crc = 0xFFFF
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
    return crc


def words(number, micros):
    number &= 0xFFFFFFFF
    t = micros & MASK
    crc = crc16(number.to_bytes(4, "big") + t.to_bytes(6, "big"))
    return [number, (t >> 16) & 0xFFFFFFFF, ((t & 0xFFFF) << 16) | crc]


def monotonic_micros():
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000


def stamp(buffer, width, height, number):
    """Writes the stamp for frame `number`, captured now, into `buffer` (I420, `width`×`height`,
    writable). Returns False when the frame is too small for 16-pixel squares."""
    if width < COLUMNS * BLOCK or height < ROWS * BLOCK:
        return False
    rows = [bytes(b for bit in range(COLUMNS) for b in [235 if (w >> (31 - bit)) & 1 else 16] * BLOCK)
            for w in words(number, monotonic_micros())]
    for r, row in enumerate(rows):
        for y in range(r * BLOCK, (r + 1) * BLOCK):
            buffer.fill(y * width, row)
    # Neutral chroma under the pattern (I420: U then V planes, each width/2 × height/2).
    cw, ch = width // 2, height // 2
    grey = bytes([128]) * (COLUMNS * BLOCK // 2)
    for plane in (width * height, width * height + cw * ch):
        for y in range(ROWS * BLOCK // 2):
            buffer.fill(plane + y * cw, grey)
    return True
