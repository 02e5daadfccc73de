"""The WeiNet paper's task (Zhang & Zhou): associative recall."""

from keras_rda.lab.tasks.weinet_paper.associative_recall import AssociativeRecall

__all__ = ["AssociativeRecall"]
