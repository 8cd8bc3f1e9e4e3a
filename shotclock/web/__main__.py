"""``python -m shotclock.web``: regenerate lib/device-texts.js from the device's texts."""

from shotclock.web import DEVICE_TEXTS, device_texts_js, web_dir

if __name__ == "__main__":
    path = web_dir() / DEVICE_TEXTS
    path.write_text(device_texts_js(), encoding="utf-8")
    print(f"wrote {path}")
