"""The tensorflow-datasets path, on `tfds.testing.mock_data`."""

import pytest

from keras_rda.lab.datasets import text_classification


@pytest.mark.parametrize(
    "name,num_classes",
    [("ag_news_subset", 4), ("imdb_reviews", 2), ("yelp_polarity_reviews", 2)],
)
def test_tfds_path_with_mock_data(monkeypatch, name, num_classes):
    import tensorflow_datasets as tfds

    monkeypatch.delenv("KERAS_RDA_DATA_DIR", raising=False)
    with tfds.testing.mock_data(num_examples=9):
        data = text_classification(name, sequence_length=16, max_examples=5)
    assert data.source.startswith("tensorflow-datasets")
    assert data.x_train.shape == (5, 16) and data.x_test.shape == (5, 16)
    assert data.num_classes == num_classes
    assert data.y_train.min() >= 0 and data.y_train.max() < num_classes
    assert (data.x_train > 0).any()
