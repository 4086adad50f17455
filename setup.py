"""The one part of the build pyproject.toml cannot declare stably: the optional C extension.

``pecli.core.certificate._fused`` is the certificate's compiled pass (docs/exactness.md, "What
it costs"): CPython's API and the buffer protocol only, so a C compiler and Python's headers
build it. ``optional``: without a compiler pip still installs pecli, which then rounds with its
NumPy path (``pecli --version`` says which). ``-ffp-contract=off``: no fused multiply-add the
source does not write, so the values are NumPy's bit for bit.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "pecli.core.certificate._fused",
            sources=["pecli/core/certificate/_fused.c"],
            extra_compile_args=["-O3", "-ffp-contract=off", "-fno-fast-math"],
            libraries=["m"],
            optional=True,
        )
    ]
)
