"""What a screenshot of conflux-net's index.html must look like.

The page (tools/conflux-net/spec/src/test_files.cpp) has a 400-px-high block
of #0a8f3c across the top with white text centred in it, then dark text on
white. The sampled regions avoid the text: y 20..150 is above the centred
48-px caption, and below the block only the share of light pixels is checked.
"""

EXPECTED_SIZE = (800, 600)
BLOCK_RGB = (0x0A, 0x8F, 0x3C)
# Chromium may colour-manage the page; a few levels either way is still the
# page's colour, while white, black or a missing page is far outside it.
BLOCK_TOLERANCE = 6
BLOCK_REGION = (range(50, 751, 10), range(20, 151, 5))
BELOW_REGION = (range(0, 800, 4), range(420, 600, 3))
LIGHT_LEVEL = 200          # every channel at least this: white-ish
# The paragraph and the file table cover about 10% of the samples (measured:
# 89.8% light); fonts differ between machines, and a page that did not load
# (all one colour, or Chromium's error page without the block) fails anyway.
MIN_LIGHT_SHARE = 0.70


def check(image):
    """Returns a list of (passed, description) for one decoded screenshot."""
    results = []
    size_ok = (image.width, image.height) == EXPECTED_SIZE
    results.append((size_ok, "screenshot is %dx%d (want %dx%d)" % (
        image.width, image.height, EXPECTED_SIZE[0], EXPECTED_SIZE[1])))
    if not size_ok:
        return results

    xs, ys = BLOCK_REGION
    total = 0
    off = []
    for y in ys:
        for x in xs:
            total += 1
            px = image.rgb(x, y)
            if max(abs(a - b) for a, b in zip(px, BLOCK_RGB)) > BLOCK_TOLERANCE:
                off.append((x, y, px))
    detail = "" if not off else "; first off: (%d,%d) rgb%s" % (off[0][0], off[0][1], off[0][2])
    results.append((not off, "block region x %d..%d y %d..%d: %d of %d samples are #0a8f3c +-%d%s" % (
        xs[0], xs[-1], ys[0], ys[-1], total - len(off), total, BLOCK_TOLERANCE, detail)))

    xs, ys = BELOW_REGION
    total = light = 0
    for y in ys:
        for x in xs:
            total += 1
            if min(image.rgb(x, y)) >= LIGHT_LEVEL:
                light += 1
    share = light / total
    results.append((share >= MIN_LIGHT_SHARE, "below the block (y %d..%d): %.1f%% of samples light (want >= %.0f%%)" % (
        ys[0], ys[-1], 100 * share, 100 * MIN_LIGHT_SHARE)))
    return results


def passed(results):
    return all(ok for ok, _ in results)
