"""The backlight: set through sysfs where the display has one (a fake sysfs here)."""

from shotclock.adapters.backlight import set_brightness


def fake_backlight(root, name, top="255"):
    device = root / name
    device.mkdir(parents=True)
    (device / "max_brightness").write_text(f"{top}\n")
    (device / "brightness").write_text("255\n")
    return device


def test_brightness_is_a_fraction_of_each_devices_maximum(tmp_path):
    a = fake_backlight(tmp_path, "10-0045", "255")
    b = fake_backlight(tmp_path, "rpi_backlight", "31")
    done, problem = set_brightness(0.5, tmp_path)
    assert problem is None
    assert done == ["10-0045=128/255", "rpi_backlight=16/31"]
    assert (a / "brightness").read_text() == "128\n" and (b / "brightness").read_text() == "16\n"


def test_never_fully_dark(tmp_path):
    fake_backlight(tmp_path, "tiny", "5")
    assert set_brightness(0.1, tmp_path)[0] == ["tiny=1/5"]


def test_no_backlight_is_not_a_problem(tmp_path):
    assert set_brightness(0.7, tmp_path / "missing") == ([], None)
    assert set_brightness(0.7, tmp_path) == ([], None)


def test_an_unwritable_device_is_named_and_the_others_still_set(tmp_path):
    fake_backlight(tmp_path, "good")
    bad = fake_backlight(tmp_path, "bad")
    (bad / "brightness").unlink()
    (bad / "brightness").mkdir()  # writing to a directory fails, as a read-only sysfs file would
    done, problem = set_brightness(1.0, tmp_path)
    assert done == ["good=255/255"]
    assert problem.startswith("cannot set the backlight (bad: ")
