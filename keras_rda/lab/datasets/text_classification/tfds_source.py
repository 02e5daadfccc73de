"""The tensorflow-datasets path: IMDb, AG News and Yelp polarity reviews."""

import numpy as np

from keras_rda.lab.datasets.text_classification.sources import RawTexts


def load_tfds(source, data_dir=None, max_examples=None, download=True):
    """The `RawTexts` of `source.tfds` from tensorflow-datasets (in
    `data_dir`, downloaded where `download`), the first `max_examples` of
    each split; a document is its `source.fields` joined by a space."""
    import tensorflow_datasets as tfds

    splits = []
    for split in ("train", "test"):
        if max_examples is not None:
            split = f"{split}[:{max_examples}]"
        ds, info = tfds.load(
            source.tfds,
            split=split,
            data_dir=data_dir,
            download=download,
            with_info=True,
        )
        texts, labels = [], []
        for example in tfds.as_numpy(ds):
            parts = [example[field] for field in source.fields]
            texts.append(" ".join(p.decode("utf-8", "replace") for p in parts))
            labels.append(int(example["label"]))
        splits.append((texts, np.asarray(labels, np.int32)))
    return RawTexts(
        train=splits[0],
        test=splits[1],
        class_names=tuple(info.features["label"].names),
        source=f"tensorflow-datasets {source.tfds}",
    )
