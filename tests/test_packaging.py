"""The wheel carries the stylesheets: built here, installed into a clean venv, and found there."""

import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_editable_install_finds_styles():
    from sagan_tui.panel.resources import stylesheet

    assert stylesheet("app.tcss").read_text().strip()


@pytest.mark.slow
def test_wheel_ships_styles_and_finds_them_in_a_clean_venv(tmp_path):
    out = subprocess.run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(tmp_path / "dist"),
                          str(ROOT)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    wheel = next((tmp_path / "dist").glob("sagan_tui-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    shipped = {Path(n).name for n in names if n.startswith("sagan_tui/styles/")}
    assert shipped == {p.name for p in (ROOT / "styles").glob("*.tcss")}
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    py = env_dir / "bin" / "python"
    # --no-deps: the check needs only our files, and must not depend on a download
    subprocess.run([str(py), "-m", "pip", "install", "-q", "--no-deps", str(wheel)], check=True, timeout=300)
    found = subprocess.run([str(py), "-c", "from sagan_tui.panel.resources import stylesheet; print(stylesheet('app.tcss'))"],
                           capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert found.returncode == 0, found.stderr
    path = Path(found.stdout.strip())
    assert env_dir in path.parents and path.read_text() == (ROOT / "styles" / "app.tcss").read_text()
