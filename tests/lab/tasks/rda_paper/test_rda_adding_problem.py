"""The RDA paper's run of the adding problem ("addition").

The generator's tests, over both channel orders, are in
`tests/lab/tasks/rwa_paper/test_adding_problem.py`.
"""

from keras_rda.lab.tasks import get_task


def test_addition_paper_defaults():
    assert get_task("addition").length == 1000
    assert get_task("addition").threshold == ("loss", "<", 0.001)
