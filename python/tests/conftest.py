"""pytest setup: the silt package as built (PYTHONPATH=build/release/python, see run.sh)."""

import os
import shutil

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SHARED = os.path.join(os.path.dirname(REPO), "shared")


@pytest.fixture
def con():
    import silt

    return silt.connect()


@pytest.fixture
def conformance_table(tmp_path):
    """Copies a table of ../shared/conformance to a temp dir and returns its path."""

    def copy(relative):
        src = os.path.join(SHARED, "conformance", relative)
        if not os.path.isdir(src):
            pytest.skip(f"no conformance table {relative}")
        dst = tmp_path / os.path.basename(relative.rstrip("/"))
        shutil.copytree(src, dst)
        return str(dst)

    return copy
