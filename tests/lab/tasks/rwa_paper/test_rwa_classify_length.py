"""The RWA paper's run of classify-length ("classify-by-length").

The generator's tests, over both presets, are in
`tests/lab/tasks/rda_paper/test_classify_length.py`.
"""

from keras_rda.lab.tasks import get_task


def test_classify_by_length_paper_defaults():
    assert get_task("classify-by-length").min_length == 0
