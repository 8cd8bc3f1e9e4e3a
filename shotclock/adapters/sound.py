"""The speaker: preloaded sounds played through pygame-ce's mixer with a small buffer.

The mixer runs with a 512-frame buffer (about 12 ms at 44.1 kHz) and every sound is loaded
at start, so a beep starts within a few milliseconds of its second. With no audio device
the device runs silently and says so on screen; the GPIO buzzer takes over.
"""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

from shotclock.errors import HardwareError

log = logging.getLogger("shotclock.sound")

FREQUENCY = 44100
BUFFER = 512
VOICE_NUMBERS = range(1, 6)


def sounds_dir() -> Path:
    """Where the WAV files are: beside the package in a checkout, else in ``<prefix>/share/shotclock``."""
    here = Path(__file__).resolve().parent.parent.parent / "sounds"
    installed = Path(sys.prefix) / "share" / "shotclock" / "sounds"
    for candidate in (here, installed):
        if (candidate / "tick.wav").exists():
            return candidate
    raise HardwareError(f"sound files not found in {here} or {installed}")


def _init_mixer(device: str = ""):
    """Open the mixer on ``device`` (an output's name; empty: the system's default)."""
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    import pygame

    if device and pygame.mixer.get_init() is not None:
        pygame.mixer.quit()  # open elsewhere in this process on the default output: the one named is wanted
    if pygame.mixer.get_init() is None:
        from shotclock.adapters.quiet import quiet_stderr

        with quiet_stderr():  # ALSA lists every card it did not find on fd 2
            try:
                pygame.mixer.init(frequency=FREQUENCY, size=-16, channels=2, buffer=BUFFER, devicename=device or None)
            except pygame.error:
                if not device:
                    raise
                names = output_devices()
                raise HardwareError(f"audio output {device!r} not found (outputs here: "
                                    f"{', '.join(repr(n) for n in names) or 'none'}; sound.device)") from None
    return pygame


def output_devices() -> list[str]:
    """The names of the audio outputs SDL sees here (for ``sound.device``)."""
    import pygame
    from pygame._sdl2 import audio

    started = not pygame.mixer.get_init()
    try:
        if started:
            pygame.mixer.init()
        return list(audio.get_audio_device_names(False))
    except pygame.error:
        return []
    finally:
        if started and pygame.mixer.get_init():
            pygame.mixer.quit()


def probe_audio(device: str = "") -> tuple[str | None, str | None]:
    """(driver, problem): opens the mixer once; ``problem`` says why there will be no sound."""
    try:
        pygame = _init_mixer(device)
    except HardwareError as exc:
        return None, str(exc)
    except Exception as exc:  # pygame.error, or an ALSA failure surfacing as another kind
        return None, f"no audio device ({exc})"
    try:
        driver = pygame.mixer.get_driver()
    finally:
        pygame.mixer.quit()
    if driver == "dummy":
        return driver, "SDL audio driver 'dummy' plays nothing (unset SDL_AUDIODRIVER or set it to alsa)"
    return driver, None


class SoundPlayer:
    """The countdown tick, the tone at 0, the ruling tone and the spoken countdown, preloaded.

    :param language: ``nl`` or ``en``, for the spoken countdown.
    :param voice: speak "vijf … één" (True) or tick (False).
    :param volume: 0 to 1.
    :param directory: where the WAV files are (default: :func:`sounds_dir`).
    :param device: the audio output by name (``sound.device``; empty: the system's default).

    Raises :class:`~shotclock.errors.HardwareError` when there is no audio device or a file is missing.
    """

    def __init__(self, language: str = "nl", voice: bool = True, volume: float = 0.8, directory=None,
                 device: str = ""):
        try:
            self._pygame = pygame = _init_mixer(device)
        except HardwareError:
            raise
        except Exception as exc:
            raise HardwareError(f"no audio device: {exc}") from None
        self.driver = pygame.mixer.get_driver()
        directory = Path(directory) if directory else sounds_dir()
        self.voice = voice
        self.sounds = {}
        names = ["tick", "zero", "ruling"] + [f"{language}/{n}" for n in VOICE_NUMBERS]
        for name in names:
            path = directory / f"{name}.wav"
            try:
                self.sounds[name] = pygame.mixer.Sound(path)
            except (pygame.error, FileNotFoundError) as exc:
                raise HardwareError(f"cannot load sound {path}: {exc}") from None
            self.sounds[name].set_volume(volume)
        self.language = language
        pygame.mixer.set_num_channels(4)

    def beep(self, remaining: int) -> None:
        """The countdown sound for ``remaining`` seconds (0: the tone at 0)."""
        if remaining == 0:
            name = "zero"
        elif self.voice and remaining in VOICE_NUMBERS:
            name = f"{self.language}/{remaining}"
        else:
            name = "tick"
        self.sounds[name].play()

    def ruling(self) -> None:
        """The tone that marks a ruling."""
        self.sounds["ruling"].play()

    def cue(self) -> None:
        """The time bank's own cue (seat tracking, time bank mode): the player's base time is up, the bank runs."""
        self.sounds["tick"].play()

    def close(self) -> None:
        """Stop and release the mixer."""
        self._pygame.mixer.quit()
