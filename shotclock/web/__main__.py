"""``python -m shotclock.web``: regenerate lib/device-texts.js and lib/device-rules.js from the core."""

from shotclock.web import GENERATED, web_dir

if __name__ == "__main__":
    for name, make in GENERATED.items():
        path = web_dir() / name
        path.write_text(make(), encoding="utf-8")
        print(f"wrote {path}")
