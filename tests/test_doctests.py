"""Every docstring example in the package runs as written (doctest), one test per module.

The modules are found by walking the package, so a new module's examples run without a line
here. ``playground.__main__`` is left out: importing it runs the command line.
"""

import doctest
import importlib
import pkgutil

import pytest

import playground

MODULES = sorted(name for _, name, _ in pkgutil.walk_packages(playground.__path__, "playground.")
                 if name.rpartition(".")[2] != "__main__")


@pytest.mark.parametrize("name", ["playground", *MODULES])
def test_the_docstring_examples_run(name):
    module = importlib.import_module(name)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    report = []
    for example in doctest.DocTestFinder().find(module):
        runner.run(example, out=report.append)
    assert runner.failures == 0, "".join(report)
