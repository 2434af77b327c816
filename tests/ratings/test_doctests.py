"""The examples in the ratings docstrings run and stay true."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

from trickroom import ratings

MODULES = sorted(m.name for m in pkgutil.iter_modules(ratings.__path__, "trickroom.ratings."))


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    failures, _ = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert failures == 0
