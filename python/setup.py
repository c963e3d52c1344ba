"""Installs the silt Python package: `pip install --no-build-isolation ./python`.

The extension module (silt._silt) comes from CMake: the one already built in a build tree when
SILT_BUILD_DIR names it (or ../build/release has it), else this script configures and builds
the silt_python target in build/python-package with Debian's python3 (the interpreter running
pip). Only Debian's setuptools is needed; pybind11-dev and the python3 headers are for the build.
"""

import glob
import os
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def _version():
    with open(os.path.join(ROOT, "CMakeLists.txt")) as f:
        for line in f:
            if line.startswith("project(silt VERSION"):
                return line.split()[2]
    return "0"


def _built_module(build_dir):
    found = glob.glob(os.path.join(build_dir, "python", "silt", "_silt*.so"))
    return found[0] if found else None


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        candidates = []
        if os.environ.get("SILT_BUILD_DIR"):
            candidates.append(os.environ["SILT_BUILD_DIR"])
        candidates.append(os.path.join(ROOT, "build", "release"))
        for build_dir in candidates:
            module = _built_module(build_dir)
            if module and os.path.basename(module).endswith(os.path.basename(target).split("_silt", 1)[1]):
                shutil.copyfile(module, target)
                return
        build_dir = os.path.join(ROOT, "build", "python-package")
        subprocess.check_call(
            [
                "cmake", "-S", ROOT, "-B", build_dir, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
                f"-DPython3_EXECUTABLE={sys.executable}", "-DSILT_PYTHON=ON",
            ]
        )
        subprocess.check_call(["ninja", "-C", build_dir, "silt_python"])
        shutil.copyfile(_built_module(build_dir), target)


setup(
    name="silt",
    version=_version(),
    description="Spark SQL and Delta Lake table maintenance, embedded (silt's Python package)",
    packages=["silt"],
    ext_modules=[Extension("silt._silt", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    python_requires=">=3.9",
    zip_safe=False,
)
