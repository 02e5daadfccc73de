"""`keras_rda.ops.parallel_scan` on degenerate shapes (its numbers are
tested against the step-by-step reference in tests/layers/test_parallel_rda.py)."""

import numpy as np
import pytest

from keras_rda.ops import parallel_scan


@pytest.mark.parametrize("method", parallel_scan.METHODS)
@pytest.mark.parametrize("length", [3, 8, 10, 100])
def test_a_batch_of_no_samples_gives_empty_results(method, length):
    # length 100 in chunks of 4: 25 chunks, more than a carry block (the
    # blocked carries); 10: a padded last chunk. A reshape to -1 could not
    # infer its size with no samples (a ZeroDivisionError on JAX).
    units = 3
    zeros = np.zeros((0, length, units), np.float32)
    state = [np.zeros((0, units), np.float32)] * 3
    averages, final_state = parallel_scan.discounted_average_scan(
        zeros, zeros, zeros, None, state, method=method, chunk_size=4
    )
    assert tuple(averages.shape) == (0, length, units)
    assert [tuple(s.shape) for s in final_state] == [(0, units)] * 3
