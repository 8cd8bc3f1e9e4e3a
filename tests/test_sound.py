"""The sound files and the player: format, lengths, loudness, and which sound plays when."""

import wave
from pathlib import Path

import pytest

from shotclock.adapters import sound
from shotclock.adapters.sound import BUFFER, SoundPlayer, sounds_dir

SOUNDS = Path(__file__).parent.parent / "sounds"
VOICES = [f"{lang}/{n}.wav" for lang in ("nl", "en") for n in range(1, 6)]


def info(name):
    with wave.open(str(SOUNDS / name), "rb") as w:
        frames = w.readframes(w.getnframes())
        peak = max(abs(int.from_bytes(frames[i:i + 2], "little", signed=True)) for i in range(0, len(frames), 2))
        return w.getframerate(), w.getsampwidth(), w.getnchannels(), w.getnframes() / w.getframerate(), peak / 32768


@pytest.mark.parametrize("name, low, high", [("tick.wav", 0.05, 0.15), ("zero.wav", 0.4, 1.0),
                                             ("ruling.wav", 0.3, 1.0)] + [(v, 0.15, 0.9) for v in VOICES])
def test_sound_files_format_and_length(name, low, high):
    rate, width, channels, seconds, peak = info(name)
    assert (rate, width, channels) == (44100, 2, 1)
    assert low <= seconds <= high, f"{name} lasts {seconds:.2f} s"
    assert peak > 0.3, f"{name} is nearly silent"


def test_spoken_numbers_differ():
    data = {v: (SOUNDS / v).read_bytes() for v in VOICES}
    assert len(set(data.values())) == len(VOICES)


def test_generator_is_in_sounds_and_documented():
    assert (SOUNDS / "make_sounds.py").exists()
    readme = (SOUNDS / "README.md").read_text()
    assert "make_sounds.py" in readme and "espeak-ng" in readme


def test_sounds_dir_finds_the_checkout():
    assert sounds_dir() == SOUNDS.resolve()


def test_mixer_buffer_is_small():
    assert BUFFER <= 512


class Recorder:
    def __init__(self, name, log):
        self.name, self.log = name, log

    def play(self):
        self.log.append(self.name)


@pytest.mark.parametrize("voice, expected", [(True, ["nl/5", "nl/1", "zero"]), (False, ["tick", "tick", "zero"])])
def test_player_plays_voice_or_ticks_then_zero(voice, expected):
    player = SoundPlayer("nl", voice=voice, volume=0.5)
    try:
        import pygame

        freq, _, _ = pygame.mixer.get_init()
        assert freq == 44100
        played = []
        player.sounds = {k: Recorder(k, played) for k in player.sounds}
        for n in (5, 1, 0):
            player.beep(n)
        assert played == expected
    finally:
        player.close()


def test_missing_sound_file_is_a_clear_error(tmp_path):
    from shotclock.errors import HardwareError

    with pytest.raises(HardwareError, match="tick.wav"):
        SoundPlayer("nl", directory=tmp_path)


def test_every_sound_file_is_installed_with_the_package():
    """setup.cfg's data_files must list each WAV, or an installed device plays nothing."""
    import configparser

    cfg = configparser.ConfigParser()
    cfg.read(SOUNDS.parent / "setup.cfg")
    listed = {f.strip() for value in cfg["options.data_files"].values() for f in value.split(",") if f.strip()}
    on_disk = {str(p.relative_to(SOUNDS.parent)) for p in SOUNDS.rglob("*.wav")}
    assert listed == on_disk
