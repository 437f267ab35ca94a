"""What one fuzz example holds: a batch of elements, typed values of every era (strategies.py) and, 1 element in 8,
a frame of a random kind (frames.py)."""

from hypothesis import strategies as st

from fuzz import frames, strategies
from fuzz.strategies import named

elements = st.integers(0, 7).flatmap(named(lambda i: frames.elements if i == 7 else strategies.elements))


def batches(size):
    """Lists of `size` elements about half the time, else 1..size: the shrinker can cut a batch to one value."""
    return st.one_of(st.integers(1, size), st.just(size)).flatmap(
        named(lambda n: st.lists(elements, min_size=n, max_size=n)))
