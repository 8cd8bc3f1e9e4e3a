#!/usr/bin/env python3
"""Make shotclock's sound files, reproducibly: ``python3 sounds/make_sounds.py``.

Tones are synthesised here with the standard library alone. The spoken countdown comes
from espeak-ng (Debian package ``espeak-ng``), trimmed of silence, normalised and
resampled here, so that every file is 44.1 kHz, 16-bit, mono WAV.
"""

from __future__ import annotations

import array
import math
import subprocess
import sys
import tempfile
import wave
from pathlib import Path

RATE = 44100
TONE_PEAK = 0.5 * 32767  # -6 dBFS: tones are dense, so they sound loud at a lower peak
VOICE_PEAK = 0.9 * 32767  # -1 dBFS: speech is sparse and needs the headroom
HERE = Path(__file__).resolve().parent
WORDS = {
    "nl": {5: "vijf", 4: "vier", 3: "drie", 2: "twee", 1: "één"},
    "en": {5: "five", 4: "four", 3: "three", 2: "two", 1: "one"},
}
ESPEAK = {"nl": ["-v", "nl", "-s", "165", "-p", "45"], "en": ["-v", "en-gb", "-s", "165", "-p", "45"]}


def tone(parts: list[tuple[float, float]], fade: float = 0.006) -> list[float]:
    """Samples of (frequency, seconds) parts in a row, each faded in and out (no clicks)."""
    out: list[float] = []
    for freq, seconds in parts:
        n = int(RATE * seconds)
        ramp = int(RATE * fade)
        for i in range(n):
            env = min(1.0, i / ramp, (n - i) / ramp)
            # A little of the third harmonic so small speakers carry it.
            x = 2 * math.pi * freq * i / RATE
            out.append(env * (0.85 * math.sin(x) + 0.15 * math.sin(3 * x)))
    return out


def write(path: Path, samples: list[float], level: float = TONE_PEAK) -> None:
    peak = max(1e-9, max(abs(s) for s in samples))
    data = array.array("h", (int(s / peak * level) for s in samples))
    path.parent.mkdir(parents=True, exist_ok=True)
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(RATE)
        w.writeframes(data.tobytes())


def read(path: Path) -> tuple[list[float], int]:
    with wave.open(str(path), "rb") as w:
        assert w.getsampwidth() == 2 and w.getnchannels() == 1, path
        data = array.array("h", w.readframes(w.getnframes()))
        return [s / 32768 for s in data], w.getframerate()


def trim(samples: list[float], threshold: float = 0.02) -> list[float]:
    loud = [i for i, s in enumerate(samples) if abs(s) > threshold]
    return samples[loud[0]:loud[-1] + 1] if loud else samples


def resample(samples: list[float], rate: int) -> list[float]:
    """Linear interpolation to RATE (espeak-ng speaks at 22050 Hz)."""
    if rate == RATE:
        return samples
    n = int(len(samples) * RATE / rate)
    out = []
    for i in range(n):
        x = i * rate / RATE
        j = int(x)
        a = samples[min(j, len(samples) - 1)]
        b = samples[min(j + 1, len(samples) - 1)]
        out.append(a + (b - a) * (x - j))
    return out


def speak(language: str, word: str, path: Path) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        raw = Path(tmp) / "raw.wav"
        subprocess.run(["espeak-ng", *ESPEAK[language], "-w", str(raw), word], check=True)
        samples, rate = read(raw)
    samples = resample(trim(samples), rate)
    fade = int(RATE * 0.004)
    samples = [s * min(1.0, i / fade, (len(samples) - i) / fade) for i, s in enumerate(samples)]
    write(path, samples, VOICE_PEAK)


def main() -> int:
    write(HERE / "tick.wav", tone([(1000, 0.08)]))
    write(HERE / "zero.wav", tone([(880, 0.7)]))
    write(HERE / "ruling.wav", tone([(660, 0.18), (440, 0.32)]))
    for language, words in WORDS.items():
        for number, word in words.items():
            speak(language, word, HERE / language / f"{number}.wav")
    print(f"wrote the sounds in {HERE}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
