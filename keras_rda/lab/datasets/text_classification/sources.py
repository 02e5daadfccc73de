"""Where each text classification data set comes from (UW paper, 3.6).

| name | real path | local copy (`path=` or `KERAS_RDA_DATA_DIR`) |
|---|---|---|
| imdb_reviews | tfds `imdb_reviews` | `imdb_labelled.txt` (`sentence<TAB>label`) |
| ag_news_subset | tfds `ag_news_subset` | `ag_news_test.csv`, `ag_news_classes.txt` |
| yelp_polarity_reviews | tfds `yelp_polarity_reviews` | a CSV as below |
| dbpedia | Zhang et al. (2015) `dbpedia_csv` | `train.csv`, `test.csv` |
| yahoo_answers | Zhang et al. (2015) `yahoo_answers_csv` | `train.csv`, `test.csv` |

tensorflow-datasets has no DBpedia or Yahoo! Answers builder, so those two
come from the Zhang, Zhao & LeCun (2015) archives (see `downloads`), whose
CSV format (see `zhang_csv`) is also the format of the AG News file.
"""

import dataclasses


@dataclasses.dataclass(frozen=True)
class TextSource:
    """How to load one data set.

    Attributes:
        tfds: the tensorflow-datasets builder, or None.
        fields: the tfds text features joined (with a space) into a document.
        local: the file looked up in `$KERAS_RDA_DATA_DIR`, or None.
        local_format: "csv" (`zhang_csv`) or "tsv" (`sentence_labels`).
        class_names: the class names, or None to read them from
            `classes_file` (or to number the classes from 1).
        classes_file: the class names file beside a local CSV file.
        archive: the Zhang et al. (2015) archive name, or None.
    """

    tfds: str | None = None
    fields: tuple = ("text",)
    local: str | None = None
    local_format: str = "csv"
    class_names: tuple | None = None
    classes_file: str = "classes.txt"
    archive: str | None = None


@dataclasses.dataclass(frozen=True)
class RawTexts:
    """Documents and labels of both splits, before tokenising.

    Attributes:
        train, test: `(texts, labels)`: a list of strings and int32 labels
            `[num_docs]` in `[0, num_classes)`.
        class_names: one name per class.
        source: where the data came from, including how it was split.
    """

    train: tuple
    test: tuple
    class_names: tuple
    source: str

    def limit(self, max_examples):
        """The first `max_examples` documents of each split (None: all)."""
        if max_examples is None:
            return self
        return dataclasses.replace(
            self,
            train=tuple(part[:max_examples] for part in self.train),
            test=tuple(part[:max_examples] for part in self.test),
        )


SOURCES = {
    "imdb_reviews": TextSource(
        tfds="imdb_reviews",
        local="imdb_labelled.txt",
        local_format="tsv",
        class_names=("negative", "positive"),
    ),
    "ag_news_subset": TextSource(
        tfds="ag_news_subset",
        fields=("title", "description"),
        local="ag_news_test.csv",
        class_names=("World", "Sports", "Business", "Sci/Tech"),
        classes_file="ag_news_classes.txt",
    ),
    "yelp_polarity_reviews": TextSource(
        tfds="yelp_polarity_reviews", class_names=("negative", "positive")
    ),
    "dbpedia": TextSource(archive="dbpedia_csv"),
    "yahoo_answers": TextSource(archive="yahoo_answers_csv"),
}


def text_classification_names():
    """The data set names `text_classification` accepts."""
    return sorted(SOURCES)
