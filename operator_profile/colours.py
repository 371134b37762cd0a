"""Colour contrast as WCAG 2.2 measures it, so the operator's brand colours stay readable."""

import re

HEX_COLOUR = re.compile(r"^#[0-9a-fA-F]{6}$")
WHITE, DARK = "#ffffff", "#111111"
MIN_TEXT_CONTRAST = 4.5  # WCAG AA for normal text


def luminance(colour: str) -> float:
    channels = [int(colour[index : index + 2], 16) / 255 for index in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(first: str, second: str) -> float:
    lighter, darker = sorted((luminance(first), luminance(second)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


def text_colour_on(background: str) -> str:
    """White or near-black, whichever reads better on `background` (one of them always reaches 4.5:1)."""
    return WHITE if contrast(background, WHITE) >= contrast(background, DARK) else DARK
